//! One worker's live bots: at most `capacity` of them, started on demand, the least recently
//! used one stopped (politely: `quit`, then its process group killed) to make room, so that a
//! run of a thousand players keeps a bounded number of processes and open files.

use std::time::Duration;

use crate::engine::Player;

/// How long an evicted or finished bot gets to exit after `quit`.
const QUIT_GRACE: Duration = Duration::from_secs(1);

pub struct Pool {
    /// (player, its bot, when it last played).
    engines: Vec<(usize, Player, u64)>,
    capacity: usize,
    clock: u64,
}

impl Pool {
    pub fn new(capacity: usize) -> Pool {
        Pool {
            engines: Vec::new(),
            capacity: capacity.max(2),
            clock: 0,
        }
    }

    pub fn has(&self, player: usize) -> bool {
        self.engines.iter().any(|(p, _, _)| *p == player)
    }

    pub fn insert(&mut self, player: usize, engine: Player) {
        self.clock += 1;
        self.engines.push((player, engine, self.clock));
    }

    /// Stops least recently used bots, other than `keep`'s, until one more fits.
    pub async fn make_room(&mut self, keep: &[usize]) {
        while self.engines.len() >= self.capacity {
            let Some(oldest) = self
                .engines
                .iter()
                .enumerate()
                .filter(|(_, (p, _, _))| !keep.contains(p))
                .min_by_key(|(_, (_, _, used))| *used)
                .map(|(i, _)| i)
            else {
                return;
            };
            let (_, engine, _) = self.engines.swap_remove(oldest);
            // The bot exits while the game goes on; its group is killed after the grace. The
            // task runs when the slot's runtime gets the thread back (the worker yields it
            // after every game: a native bot's waits block the thread).
            tokio::spawn(engine.quit(QUIT_GRACE));
        }
    }

    /// The bots of `a` and `b` (both in the pool), marked as just used.
    pub fn pair(&mut self, a: usize, b: usize) -> [&mut Player; 2] {
        self.clock += 1;
        let clock = self.clock;
        let mut found: [Option<&mut Player>; 2] = [None, None];
        for (p, engine, used) in self.engines.iter_mut() {
            if *p == a || *p == b {
                *used = clock;
                found[usize::from(*p == b)] = Some(engine);
            }
        }
        match found {
            [Some(x), Some(y)] => [x, y],
            _ => unreachable!("both players' bots were started before the game"),
        }
    }

    /// Kills a player's bot (after a fault); it is started afresh when next needed.
    pub async fn kill(&mut self, player: usize) {
        if let Some(i) = self.engines.iter().position(|(p, _, _)| *p == player) {
            let (_, mut engine, _) = self.engines.swap_remove(i);
            engine.kill().await;
        }
    }

    /// `quit` to every bot but `keep`'s, then their groups killed.
    pub async fn quit_all(&mut self, keep: &[usize]) {
        let (kept, gone) = std::mem::take(&mut self.engines)
            .into_iter()
            .partition(|(p, _, _)| keep.contains(p));
        self.engines = kept;
        for (_, engine, _) in gone {
            engine.quit(QUIT_GRACE).await;
        }
    }

    /// Kills every bot at once (the run was interrupted).
    pub async fn kill_all(&mut self) {
        for (_, mut engine, _) in self.engines.drain(..) {
            engine.kill().await;
        }
    }
}
