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
}
