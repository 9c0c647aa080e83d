//! NIST SP 800-22 Rev. 1a's worked examples, reproduced: each test's small example (section
//! 2.x.4) and its example (2.x.8) on the first 100 bits of π's binary expansion, derived here from
//! π's well-known hexadecimal digits, or on the first 10⁵ or 10⁶ bits of e's, computed here by
//! binary splitting (the file `data.e` of NIST's suite holds the same bits). The P-values are the
//! publication's, to its six decimals; where the publication's text and NIST's reference code
//! disagree, which one is matched is said at the test.

use std::sync::OnceLock;

use num_bigint::BigUint;
use pitboss_lab::nist;

/// The first `n` bits of e's binary expansion (10.1011011111100001…), e = Σ 1/k! summed by
/// binary splitting: P/Q = Σ_{k=a+1..b} 1/((a+1)…k), and e·2^(n−2) = (Q + P)·2^(n−2)/Q.
fn e_bits(n: usize) -> &'static [u8] {
    static BITS: OnceLock<Vec<u8>> = OnceLock::new();
    const MOST: usize = 1_048_576;
    assert!(n <= MOST);
    let bits = BITS.get_or_init(|| {
        fn split(a: u64, b: u64) -> (BigUint, BigUint) {
            if b - a == 1 {
                return (BigUint::from(1u32), BigUint::from(b));
            }
            let m = (a + b) / 2;
            let (p1, q1) = split(a, m);
            let (p2, q2) = split(m, b);
            (p1 * &q2 + p2, q1 * q2)
        }
        // Enough terms that the rest, under 2/K!, is below 2^−(n + 64).
        let mut terms = 1u64;
        let mut log2_factorial = 0.0f64;
        while log2_factorial < (MOST + 64) as f64 {
            terms += 1;
            log2_factorial += (terms as f64).log2();
        }
        let (p, q) = split(0, terms);
        let scaled = ((&q + p) << (MOST - 2)) / q;
        let text = scaled.to_str_radix(2);
        assert_eq!(text.len(), MOST);
        text.bytes().map(|c| c - b'0').collect()
    });
    &bits[..n]
}

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

#[test]
fn the_bits_of_e_are_e() {
    let text: String = e_bits(64).iter().map(|b| char::from(b'0' + b)).collect();
    // e = 2.B7E151628AED2A6A…₁₆: 10 then the fraction's bits.
    let hex = "B7E151628AED2A6A";
    let fraction: String = hex
        .chars()
        .map(|c| format!("{:04b}", c.to_digit(16).unwrap()))
        .collect();
    assert_eq!(text, format!("10{}", &fraction[..62]));
}

/// 2.5.8: the first 100 000 bits of e, 97 matrices.
#[test]
fn rank_2_5() {
    close(nist::rank(e_bits(100_000)).unwrap(), 0.532069);
}

/// 2.6.8: NIST's reference code gives 0.646355 on the 100 bits of π; the publication's text
/// prints another value (0.168669), which no reading of its own formulas reproduces.
#[test]
fn spectral_2_6() {
    close(nist::spectral(&pi_bits(100)).unwrap(), 0.646355);
}

/// 2.7.4: ε = 10100100101110010110, B = 001, two blocks of 10; and the reference code's
/// P-values of all 148 nine-bit templates over the first 10⁵ bits of e (eight blocks), checked
/// at a few.
#[test]
fn non_overlapping_template_2_7() {
    let p = nist::non_overlapping_templates(
        &nist::bits_of_text("10100100101110010110"),
        &[vec![0, 0, 1]],
        2,
    )
    .unwrap();
    close(p[0], 0.344154);
    let templates = nist::aperiodic_templates(9);
    assert_eq!(templates.len(), 148);
    let p = nist::non_overlapping_templates(e_bits(100_000), &templates, 8).unwrap();
    for (i, want) in [
        (0, 0.362582),
        (1, 0.284640),
        (5, 0.101036),
        (85, 0.005759),
        (147, 0.412030),
    ] {
        close(p[i], want);
    }
}

/// 2.8.4: ε of 50 bits, B = 11, five blocks of 10, χ² = 3.167729: the publication prints
/// P = 0.274932, which is igamc(5/2, χ²), not its formula's igamc(5/2, χ²/2); ours is the
/// formula's at that χ² (so the statistic is the publication's), and the reference code's. 2.8.8:
/// the first 10⁶ bits of e, m = 9, P = 0.110434.
#[test]
fn overlapping_template_2_8() {
    use statrs::function::gamma::gamma_ur;
    let chi = 3.167729;
    let small = nist::overlapping_template(
        &nist::bits_of_text("10111011110010110110011100101110111110000101101001"),
        2,
        10,
    )
    .unwrap();
    // χ² printed to six places moves P by up to 10⁻⁵ here.
    assert!((small - gamma_ur(2.5, chi / 2.0)).abs() < 1e-5, "{small}");
    close(gamma_ur(2.5, chi), 0.274932);
    close(
        nist::overlapping_template(e_bits(1_000_000), 9, 1032).unwrap(),
        0.110434,
    );
}

/// 2.9.4: ε = 01011010011101010111, L = 2, Q = 4: fₙ = 1.1949875, and the publication's
/// P-value, which it computes from σ = √variance alone; 2.9.8: e, L = 7, Q = 1 280 (σ with the
/// correction c and K, as everywhere else). The publication says the first 1 048 576 bits; its
/// P-value is that of the first 10⁶ (all that NIST's `data.e` holds).
#[test]
fn universal_2_9() {
    let small = nist::universal_with(&nist::bits_of_text("01011010011101010111"), 2, 4).unwrap();
    assert_eq!((small.l, small.q, small.k), (2, 4, 6));
    assert!((small.statistic - 1.1949875).abs() < 5e-8, "{small:?}");
    close(small.p_value_uncorrected(), 0.767189);
    let e = nist::universal(e_bits(1_000_000)).unwrap();
    assert_eq!((e.l, e.q), (7, 1280));
    close(e.p_value, 0.282568);
    // The reference code's run on 500 000 bits: L = 6, Q = 640, K = 82 693, P = 0.791608.
    let half = nist::universal(e_bits(500_000)).unwrap();
    assert_eq!((half.l, half.q, half.k), (6, 640, 82_693));
    close(half.p_value, 0.791608);
}

/// 2.10.8: the first 10⁶ bits of e, M = 1 000.
#[test]
fn linear_complexity_2_10() {
    close(
        nist::linear_complexity(e_bits(1_000_000), 1000).unwrap(),
        0.845406,
    );
}

/// 2.14.8: the first 10⁶ bits of e, J = 1 490. The states −4 … −1 as the publication prints them;
/// for +1 … +4 its text's values are not its formulas' (NIST's reference code, from the same
/// formulas, gives these).
#[test]
fn random_excursions_2_14() {
    let (p, cycles) = nist::random_excursions(e_bits(1_000_000)).unwrap();
    assert_eq!(cycles, 1490);
    let want = [
        0.573306, 0.197996, 0.164011, 0.007779, 0.786868, 0.440912, 0.797854, 0.778186,
    ];
    for (got, want) in p.iter().zip(want) {
        close(*got, want);
    }
    // Too short a walk: not applicable, and said so.
    assert!(matches!(
        nist::random_excursions(&pi_bits(100)),
        Err(nist::NistError::TooFewCycles { .. })
    ));
}

/// 2.15.8: the first 10⁶ bits of e, states −9 … +9.
#[test]
fn random_excursions_variant_2_15() {
    let (p, cycles) = nist::random_excursions_variant(e_bits(1_000_000)).unwrap();
    assert_eq!(cycles, 1490);
    let want = [
        0.858946, 0.794755, 0.576249, 0.493417, 0.633873, 0.917283, 0.934708, 0.816012, 0.826009,
        0.137861, 0.200642, 0.441254, 0.939291, 0.505683, 0.445935, 0.512207, 0.538635, 0.593930,
    ];
    for (got, want) in p.iter().zip(want) {
        close(*got, want);
    }
}

/// Generators built to fail (test-only), the whole battery run on each: a source biased to 52 %
/// ones fails the frequency family, and a 31-bit linear feedback shift register (PRBS31, x³¹ + x²⁸ + 1,
/// balanced and of full period) passes the frequency test but fails the linear complexity and
/// rank tests, which look for exactly that structure.
#[test]
fn generators_built_to_fail_fail_the_battery() {
    fn p_of(outcomes: &[nist::Outcome], test: &str) -> f64 {
        let o = outcomes.iter().find(|o| o.test == test).unwrap();
        o.result.as_ref().unwrap()[0].1
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let biased: Vec<u8> = (0..1_000_000)
        .map(|_| u8::from(next() % 100 < 52))
        .collect();
    let outcomes = nist::battery(&biased);
    for test in ["frequency", "cumulative_sums", "runs"] {
        assert!(
            p_of(&outcomes, test) < nist::ALPHA,
            "{test} passes a biased source"
        );
    }
    let mut register = 0x5a5a_5a5au32 & 0x7fff_ffff;
    let lfsr: Vec<u8> = (0..1_000_000)
        .map(|_| {
            let bit = ((register >> 30) ^ (register >> 27)) & 1;
            register = (register << 1 | bit) & 0x7fff_ffff;
            bit as u8
        })
        .collect();
    let outcomes = nist::battery(&lfsr);
    assert!(p_of(&outcomes, "frequency") >= nist::ALPHA);
    assert_eq!(nist::linear_complexity_of(&lfsr[..500]), 31);
    for test in ["linear_complexity", "rank"] {
        assert!(p_of(&outcomes, test) < 1e-10, "{test} passes an LFSR");
    }
}
