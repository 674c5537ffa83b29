//! Dense symmetric positive-definite linear algebra for the Newton steps: Cholesky
//! factorisation, solve and inverse. Small (n ≲ 1000) row-major matrices only.

/// Cholesky factor `L` (row-major, lower triangle) of the SPD matrix `a` (`n × n`), or `None`
/// if `a` is not numerically positive definite.
pub(crate) fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            let (ri, rj) = (&l[i * n..i * n + j], &l[j * n..j * n + j]);
            for k in 0..j {
                s -= ri[k] * rj[k];
            }
            if i == j {
                if s.is_nan() || s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b` in place.
pub(crate) fn cholesky_solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * n + k] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

/// `Lᵀ` (row-major), for [`cholesky_solve_t`].
pub(crate) fn transpose(l: &[f64], n: usize) -> Vec<f64> {
    let mut t = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            t[j * n + i] = l[i * n + j];
        }
    }
    t
}

/// [`cholesky_solve`] with `lt = Lᵀ` at hand, for many right-hand sides: the same operations
/// in the same order (the same result to the bit), but the back substitution reads rows of
/// `Lᵀ` instead of columns of `L`, a cache miss per term once `n` is in the hundreds (a
/// thousand players' covariance spent minutes there).
pub(crate) fn cholesky_solve_t(l: &[f64], lt: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let row = &l[i * n..i * n + i];
        let mut s = b[i];
        for (a, x) in row.iter().zip(&b[..i]) {
            s -= a * x;
        }
        b[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let row = &lt[i * n + i + 1..(i + 1) * n];
        let mut s = b[i];
        for (a, x) in row.iter().zip(&b[i + 1..]) {
            s -= a * x;
        }
        b[i] = s / l[i * n + i];
    }
}

/// The inverse of `L Lᵀ` (row-major, `n × n`).
pub(crate) fn cholesky_inverse(l: &[f64], n: usize) -> Vec<f64> {
    let mut inv = vec![0.0; n * n];
    let mut col = vec![0.0; n];
    let lt = transpose(l, n);
    for j in 0..n {
        col.iter_mut().for_each(|c| *c = 0.0);
        col[j] = 1.0;
        cholesky_solve_t(l, &lt, n, &mut col);
        for i in 0..n {
            inv[i * n + j] = col[i];
        }
    }
    inv
}

/// `Σ a_k b_k` with four running sums: the compiler keeps them in vector registers, where one
/// sum waits on each addition (a large pool's factorisation is made of such dot products).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (mut s, n) = ([0.0; 4], a.len().min(b.len()));
    let (ca, cb) = (a[..n].chunks_exact(4), b[..n].chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            s[k] += x[k] * y[k];
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

/// The inverse of the SPD matrix `a` (`n × n`, row-major), or `None` if `a` is not numerically
/// positive definite: Cholesky `a = L Lᵀ`, `U = L⁻ᵀ` by rows, `a⁻¹ = U Uᵀ`, every inner loop a
/// contiguous [`dot`] (`n³/6` multiply-adds for each of the three). For large pools; the small
/// ones keep [`cholesky_inverse`]'s arithmetic.
pub(crate) fn spd_inverse(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s = a[i * n + j] - dot(&l[i * n..i * n + j], &l[j * n..j * n + j]);
            if i == j {
                if !(s > 0.0 && s.is_finite()) {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    // Row j of U = L⁻ᵀ is column j of L⁻¹: zero before j, solved forward from there.
    let mut u = vec![0.0; n * n];
    for j in 0..n {
        u[j * n + j] = 1.0 / l[j * n + j];
        for i in j + 1..n {
            let s = dot(&l[i * n + j..i * n + i], &u[j * n + j..j * n + i]);
            u[j * n + i] = -s / l[i * n + i];
        }
    }
    // (L⁻ᵀ L⁻¹)_ab = Σ_k U_ak U_bk over k ≥ max(a, b).
    let mut inv = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..=a {
            let v = dot(&u[a * n + a..(a + 1) * n], &u[b * n + a..(b + 1) * n]);
            inv[a * n + b] = v;
            inv[b * n + a] = v;
        }
    }
    Some(inv)
}

/// `M C Mᵀ`: the covariance `C` (`inner` × `inner`) carried through the linear map `M` (`rows` ×
/// `inner`), both row-major. `M` is a sparse transform where it is used (centring, anchoring),
/// so its zeros are skipped.
pub(crate) fn congruence(m: &[f64], c: &[f64], rows: usize, inner: usize) -> Vec<f64> {
    let mut mc = vec![0.0; rows * inner];
    for r in 0..rows {
        for k in 0..inner {
            let x = m[r * inner + k];
            if x != 0.0 {
                for t in 0..inner {
                    mc[r * inner + t] += x * c[k * inner + t];
                }
            }
        }
    }
    let mut out = vec![0.0; rows * rows];
    for r in 0..rows {
        for s in 0..rows {
            out[r * rows + s] = (0..inner)
                .map(|k| mc[r * inner + k] * m[s * inner + k])
                .sum();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts_a_small_spd_matrix() {
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let l = cholesky(&a, 3).unwrap();
        let mut b = [1.0, 2.0, 3.0];
        cholesky_solve(&l, 3, &mut b);
        for i in 0..3 {
            let r: f64 = (0..3).map(|k| a[i * 3 + k] * b[k]).sum();
            assert!((r - [1.0, 2.0, 3.0][i]).abs() < 1e-12);
        }
        let inv = cholesky_inverse(&l, 3);
        for i in 0..3 {
            for j in 0..3 {
                let r: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((r - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        assert!(cholesky(&[1.0, 2.0, 2.0, 1.0], 2).is_none());
        let mut c = [1.0, 2.0, 3.0];
        cholesky_solve_t(&l, &transpose(&l, 3), 3, &mut c);
        assert_eq!(b, c, "the transposed solve is the same arithmetic");
    }

    #[test]
    fn the_large_pool_inverse_times_its_matrix_is_the_identity() {
        // A random SPD matrix B Bᵀ + I of a size that leaves a remainder in every dot product.
        let n = 37;
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let b: Vec<f64> = (0..n * n).map(|_| next()).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>()
                    + if i == j { 1.0 } else { 0.0 };
            }
        }
        let inv = spd_inverse(&a, n).unwrap();
        for i in 0..n {
            for j in 0..n {
                let r: f64 = (0..n).map(|k| a[i * n + k] * inv[k * n + j]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((r - want).abs() < 1e-10, "({i}, {j}): {r}");
            }
        }
        assert!(spd_inverse(&[1.0, 2.0, 2.0, 1.0], 2).is_none());
    }
}
