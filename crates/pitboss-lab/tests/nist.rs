//! NIST SP 800-22 Rev. 1a's worked examples, reproduced: each test's small example (section
//! 2.x.4) and its example on the first 100 bits of π's binary expansion (2.x.8), which is derived
//! here from π's well-known hexadecimal digits rather than typed in. The P-values are the
//! publication's, to its six decimals.

use pitboss_lab::nist;

/// π = 3.243F6A8885A308D313198A2E0370734…₁₆: the binary expansion 11.0010 0100 0011 …, of which
/// the publication's ε is the first 100 bits.
fn pi_bits(n: usize) -> Vec<u8> {
    let fraction = "243F6A8885A308D313198A2E03707344A4093822299F31D008";
    let mut bits = vec![1, 1];
    for digit in fraction.chars() {
        let v = digit.to_digit(16).unwrap() as u8;
        bits.extend((0..4).rev().map(|i| v >> i & 1));
    }
    bits.truncate(n);
    bits
}

fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() < 5e-7,
        "got {got:.7}, the publication says {want}"
    );
}

#[test]
fn the_first_hundred_bits_of_pi_are_the_publications_epsilon() {
    let text: String = pi_bits(100).iter().map(|b| char::from(b'0' + b)).collect();
    // Its first and last groups as the publication prints them (2.1.8), as a check of the
    // derivation, not its source.
    assert!(text.starts_with("11001001000011111101101010100010001000010110100011"));
    assert!(text.ends_with("00001000110100110001001100011001100010100010111000"));
}

#[test]
fn frequency_2_1() {
    close(
        nist::frequency(&nist::bits_of_text("1011010101")).unwrap(),
        0.527089,
    );
    close(nist::frequency(&pi_bits(100)).unwrap(), 0.109599);
}

#[test]
fn block_frequency_2_2() {
    close(
        nist::block_frequency(&nist::bits_of_text("0110011010"), 3).unwrap(),
        0.801252,
    );
    close(nist::block_frequency(&pi_bits(100), 10).unwrap(), 0.706438);
}

#[test]
fn runs_2_3() {
    close(
        nist::runs(&nist::bits_of_text("1001101011")).unwrap(),
        0.147232,
    );
    close(nist::runs(&pi_bits(100)).unwrap(), 0.500798);
}

#[test]
fn longest_run_2_4() {
    let epsilon = nist::bits_of_text(
        "11001100000101010110110001001100111000000000001001001101010100010001001111010110100000001101011111001100111001101101100010110010",
    );
    assert_eq!(epsilon.len(), 128);
    close(nist::longest_run(&epsilon).unwrap(), 0.180609);
}

#[test]
fn serial_2_11() {
    let (p1, p2) = nist::serial(&nist::bits_of_text("0011011101"), 3).unwrap();
    close(p1, 0.808792);
    close(p2, 0.670320);
}

#[test]
fn approximate_entropy_2_12() {
    close(
        nist::approximate_entropy(&nist::bits_of_text("0100110101"), 3).unwrap(),
        0.261961,
    );
    close(
        nist::approximate_entropy(&pi_bits(100), 2).unwrap(),
        0.235301,
    );
}

#[test]
fn cumulative_sums_2_13() {
    close(
        nist::cumulative_sums(&nist::bits_of_text("1011010111"), false).unwrap(),
        0.4116588,
    );
    close(
        nist::cumulative_sums(&pi_bits(100), false).unwrap(),
        0.219194,
    );
    close(
        nist::cumulative_sums(&pi_bits(100), true).unwrap(),
        0.114866,
    );
}

/// A generator biased towards ones (60 %) fails what it should, however the bits are arranged.
#[test]
fn a_biased_generator_fails() {
    // A fixed, deterministic sequence: 3 ones in every 5 bits, the positions varied.
    let bits: Vec<u8> = (0..100_000u64)
        .map(|i| u8::from((i * 7919 + i / 5) % 5 < 3))
        .collect();
    assert!(nist::frequency(&bits).unwrap() < nist::ALPHA);
    assert!(nist::cumulative_sums(&bits, false).unwrap() < nist::ALPHA);
    assert_eq!(
        nist::runs(&bits).unwrap(),
        0.0,
        "the frequency prerequisite fails"
    );
}
