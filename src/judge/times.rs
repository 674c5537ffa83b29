//! How long judging each sow took, and whether it was proven: the benchmark's figures
//! (scripts/analyse-bench.sh reads the line [`SowTimes::describe`] prints).

use std::time::Duration;

#[derive(Clone, Debug, Default)]
pub struct SowTimes(pub Vec<(Duration, bool)>);

impl SowTimes {
    /// `sows N, proven P (x %), per sow median M ms, p99 Q ms, max X ms`; the times only when
    /// there were sows (nothing measured prints as nothing, not as 0).
    pub fn describe(&self) -> String {
        if self.0.is_empty() {
            return "sows 0: no sow was judged".to_string();
        }
        let mut t: Vec<f64> = self.0.iter().map(|(d, _)| d.as_secs_f64() * 1e3).collect();
        t.sort_by(f64::total_cmp);
        let at = |q: f64| t[((t.len() as f64 - 1.0) * q).round() as usize];
        let proven = self.0.iter().filter(|(_, p)| *p).count();
        format!(
            "sows {}, proven {proven} ({:.2} %), per sow median {:.2} ms, p99 {:.1} ms, max {:.0} ms",
            t.len(),
            100.0 * proven as f64 / t.len() as f64,
            at(0.5),
            at(0.99),
            t[t.len() - 1]
        )
    }

    pub fn extend(&mut self, other: SowTimes) {
        self.0.extend(other.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_and_the_empty_case() {
        let ms = |m: u64, p: bool| (Duration::from_millis(m), p);
        let t = SowTimes(vec![ms(1, true), ms(3, true), ms(2, false), ms(100, true)]);
        assert_eq!(
            t.describe(),
            "sows 4, proven 3 (75.00 %), per sow median 3.00 ms, p99 100.0 ms, max 100 ms"
        );
        assert_eq!(SowTimes::default().describe(), "sows 0: no sow was judged");
    }
}
