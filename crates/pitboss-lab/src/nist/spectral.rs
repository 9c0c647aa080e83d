//! 2.6, the discrete Fourier transform (spectral) test: the share of the first n/2 moduli of the
//! DFT of the ±1 sequence that stay under the 95 % threshold T = √(ln(1/0.05)·n).
//!
//! Owns the statistic; the transform is `rustfft`'s (any length, as the publication's n is). MUST
//! NOT read anything but the bits given.

use rustfft::num_complex::Complex;
use statrs::function::erf::erfc;

use super::NistError;

/// 2.6: the P-value (at least 1 000 bits, as the publication recommends; fewer are refused
/// only below 2).
pub fn spectral(bits: &[u8]) -> Result<f64, NistError> {
    let n = bits.len();
    if n < 2 {
        return Err(NistError::TooShort {
            test: "spectral",
            bits: n,
            needed: 2,
        });
    }
    let mut x: Vec<Complex<f64>> = bits
        .iter()
        .map(|&b| Complex::new(if b == 1 { 1.0 } else { -1.0 }, 0.0))
        .collect();
    rustfft::FftPlanner::new()
        .plan_fft_forward(n)
        .process(&mut x);
    let nf = n as f64;
    let threshold = ((1.0f64 / 0.05).ln() * nf).sqrt();
    let under = x[..n / 2].iter().filter(|s| s.norm() < threshold).count();
    let expected = 0.95 * nf / 2.0;
    let d = (under as f64 - expected) / (nf * 0.95 * 0.05 / 4.0).sqrt();
    Ok(erfc(d.abs() / std::f64::consts::SQRT_2))
}
