//! One move's clock (docs/tournament.md, "Time by CPU"): on wall time, a limit is up when that
//! much time has passed since the bot was asked; on CPU time, when the bot's process tree has
//! used that much CPU since the move began, or (whatever it used) when [`CPU_WALL_CAP`] times the
//! limit has passed. The drivers wait for their bot until [`MoveClock::wake`] and ask
//! [`MoveClock::spent`] when the wait ends without an answer; a wall clock never reads the CPU.

use std::time::{Duration, Instant};

use crate::vocab::{TimeBy, CPU_WALL_CAP};

/// The shortest wait between two looks at a bot's CPU time.
const MIN_LOOK: Duration = Duration::from_millis(5);

/// The clock of one move: when it began, on which clock it counts, and the bot's CPU time
/// then.
#[derive(Clone, Copy, Debug)]
pub struct MoveClock {
    started: Instant,
    by: TimeBy,
    /// The CPU time of the bot's process tree when the move began: zero for a process started
    /// for it (a per-move program, a ManKalah agent's first move of its game), whose start-up
    /// counts as the move's time like any other.
    baseline: Duration,
}

impl MoveClock {
    /// A move that began at `started`, counted `by` that clock from the bot's CPU time
    /// `baseline`.
    pub fn new(started: Instant, by: TimeBy, baseline: Duration) -> MoveClock {
        MoveClock {
            started,
            by,
            baseline,
        }
    }

    pub fn started(&self) -> Instant {
        self.started
    }

    pub fn by(&self) -> TimeBy {
        self.by
    }

    /// The CPU the move has used, from the bot's total `cpu` (`None`: not known).
    pub fn used(&self, cpu: Option<Duration>) -> Option<Duration> {
        cpu.map(|c| c.saturating_sub(self.baseline))
    }

    /// The wall-clock time after which `limit` is up whatever the CPU says: the limit itself
    /// on wall time, [`CPU_WALL_CAP`] times it on CPU time.
    pub fn wall_cap(&self, limit: Duration) -> Duration {
        match self.by {
            TimeBy::Wall => limit,
            TimeBy::Cpu => limit.saturating_mul(CPU_WALL_CAP),
        }
    }

    /// When to look next: on wall time, when `limit` is up; on CPU time, at the soonest moment
    /// the CPU could reach it (half the CPU left, for a bot with threads), never after the wall
    /// cap. `cpu` is asked only on CPU time (`None`: the CPU is not known, and the wall time
    /// stands for it).
    pub fn wake(&self, limit: Duration, cpu: impl FnOnce() -> Option<Duration>) -> Instant {
        let cap = self.started + self.wall_cap(limit);
        if self.by == TimeBy::Wall {
            return cap;
        }
        let used = self.used(cpu()).unwrap_or_else(|| self.started.elapsed());
        let left = limit.saturating_sub(used);
        (Instant::now() + (left / 2).max(MIN_LOOK)).min(cap)
    }

    /// Whether `limit` is up: the wall time on wall time; on CPU time, the CPU used (the wall
    /// time where it is not known), or the wall cap.
    pub fn spent(&self, limit: Duration, cpu: impl FnOnce() -> Option<Duration>) -> bool {
        let elapsed = self.started.elapsed();
        if elapsed >= self.wall_cap(limit) {
            return true;
        }
        match self.by {
            TimeBy::Wall => false,
            TimeBy::Cpu => self.used(cpu()).unwrap_or(elapsed) >= limit,
        }
    }

    /// The words for a limit that is up, after `what` (`no bestmove`): `within 1,100 ms`, or on
    /// CPU time `within 1,100 ms of CPU (used 1,120 ms in 1,530 ms)` or `within the wall-time cap
    /// of 4,400 ms (4 × 1,100 ms)`.
    pub fn over(&self, what: &str, limit: Duration, cpu: Option<Duration>) -> String {
        let ms = |d: Duration| crate::vocab::judging::thousands(d.as_millis());
        let elapsed = self.started.elapsed();
        match self.by {
            TimeBy::Wall => format!("{what} within {} ms", limit.as_millis()),
            TimeBy::Cpu if elapsed >= self.wall_cap(limit) => format!(
                "{what} within the wall-time cap of {} ms ({CPU_WALL_CAP} × {} ms)",
                ms(self.wall_cap(limit)),
                ms(limit)
            ),
            TimeBy::Cpu => format!(
                "{what} within {} ms of CPU (it used {} ms in {} ms)",
                ms(limit),
                ms(self.used(cpu).unwrap_or(elapsed)),
                ms(elapsed)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn a_wall_clock_never_reads_the_cpu() {
        let started = Instant::now();
        let clock = MoveClock::new(started, TimeBy::Wall, Duration::ZERO);
        let no_cpu = || -> Option<Duration> { panic!("a wall clock read the CPU") };
        assert_eq!(clock.wake(MS(500), no_cpu), started + MS(500));
        assert!(!clock.spent(MS(60_000), no_cpu));
        assert!(clock.spent(Duration::ZERO, no_cpu));
        assert_eq!(
            clock.over("no bestmove", MS(1125), None),
            "no bestmove within 1125 ms"
        );
    }

    /// Times are made up (the clock started long ago, or just now) rather than waited for.
    #[test]
    fn a_cpu_clock_counts_the_cpu_from_its_baseline_under_a_wall_cap() {
        let now = Instant::now();
        let clock = MoveClock::new(now, TimeBy::Cpu, MS(300));
        // 1 s of CPU: 1.2 s used so far is 900 ms since the move began, not spent.
        assert_eq!(clock.used(Some(MS(1200))), Some(MS(900)));
        assert!(!clock.spent(MS(1000), || Some(MS(1200))));
        assert!(clock.spent(MS(1000), || Some(MS(1300))));
        // The next look: half the CPU left (50 ms), not before 5 ms, never after the cap.
        let wake = clock.wake(MS(1000), || Some(MS(1200)));
        assert!(wake >= now + MS(50) && wake <= now + MS(4000), "{wake:?}");
        let wake = clock.wake(MS(1000), || Some(MS(1299)));
        assert!(wake >= now + MS(5), "{wake:?}");
        // Long past the wall cap, whatever the CPU.
        if let Some(long_ago) = now.checked_sub(MS(5000)) {
            let old = MoveClock::new(long_ago, TimeBy::Cpu, Duration::ZERO);
            assert!(old.spent(MS(1000), || Some(MS(10))));
            assert_eq!(old.wake(MS(1000), || Some(MS(10))), long_ago + MS(4000));
            assert_eq!(
                old.over("no bestmove", MS(1000), Some(MS(10))),
                "no bestmove within the wall-time cap of 4,000 ms (4 × 1,000 ms)"
            );
        }
        // Without a CPU reading, the wall time stands for it.
        assert!(!clock.spent(MS(60_000), || None));
        let text = clock.over("no move", MS(1000), Some(MS(1310)));
        assert!(
            text.starts_with("no move within 1,000 ms of CPU (it used 1,010 ms in "),
            "{text}"
        );
    }
}
