//! The bot kits' cost per sow as the arena measures it (issue 16): the Python kit's random
//! example, the JavaScript kit's random example and the bundled Rust random bot, started through
//! the arena's own [`Engine`] (the code a tournament uses), each playing GAMES whole games of
//! RULES against itself, one bot process at a time and in turn, on one thread. Each `go` is timed
//! by the engine exactly as in a tournament (from writing `go` to reading `bestmove`: the pipe,
//! the kit's parsing and replay, `choose`), at full precision (`games.csv` keeps whole
//! milliseconds). A benchmark, not a test: the figures depend on the machine and its load.
//!
//! ```sh
//! cargo build --release --workspace --bins
//! cargo run --release --example kit_speed -- [GAMES] [RULES]   # default 100 kalah
//! ```
//! (`scripts/kit-bench.sh` runs it.) The bots play themselves so the three see the same kind
//! of games; the order of the three rotates every game so load drifts hit them alike.

use std::path::PathBuf;
use std::time::Duration;

use mancala_arena::engine::{BotLog, BotSpec, Engine, Program, Turn};
use mancala_arena::protocol::{GoLimits, PositionStart};
use mancala_arena::rules::{Position, Ruleset};
use mancala_arena::vocab::TimeBy;

fn main() {
    let mut args = std::env::args().skip(1);
    let games: usize = args.next().map_or(100, |s| s.parse().expect("GAMES"));
    let rules: Ruleset = args
        .next()
        .unwrap_or_else(|| "kalah".into())
        .parse()
        .expect("RULES");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = std::env::current_exe().expect("exe");
    // target/<profile>/examples/kit_speed → target/<profile>/mancala-random
    let bin = exe.parent().and_then(|p| p.parent()).expect("target dir");
    let bots = [
        (
            "python-kit",
            Program::Exec {
                program: "python3".into(),
                args: vec![root
                    .join("bots/python/examples/random_bot.py")
                    .display()
                    .to_string()],
            },
        ),
        (
            "js-kit",
            Program::Exec {
                program: "node".into(),
                args: vec![root
                    .join("bots/js/examples/random.js")
                    .display()
                    .to_string()],
            },
        ),
        (
            "rust",
            Program::Exec {
                program: bin.join("mancala-random"),
                args: vec![],
            },
        ),
    ];
    let logs = std::env::temp_dir().join(format!("kit-speed-{}", std::process::id()));
    std::fs::create_dir_all(&logs).expect("log dir");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); bots.len()];
    rt.block_on(async {
        let mut engines = Vec::new();
        for (name, program) in &bots {
            let spec = BotSpec {
                name: name.to_string(),
                program: program.clone(),
                dir: None,
                options: vec![],
                protocol: Default::default(),
                sandbox: false,
                memory: None,
                time_by: None,
                kgp_missing_move: Default::default(),
            };
            let log = BotLog::new(&logs.join(format!("{name}.log")), 1 << 20)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let engine = Engine::start(&spec, &log, Duration::from_secs(10), None)
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            engines.push(engine);
        }
        let limits = GoLimits {
            movetime: Some(5000),
            ..GoLimits::default()
        };
        for game in 0..games {
            for k in 0..bots.len() {
                let b = (game + k) % bots.len();
                let engine = &mut engines[b];
                engine.new_game(rules, game as u64).expect("newgame");
                let mut pos = Position::new(rules);
                let mut moves = Vec::new();
                while !pos.is_over() {
                    let answer = engine
                        .go(Turn {
                            start: &PositionStart::Startpos,
                            moves: &moves,
                            limits,
                            limit: Duration::from_secs(6),
                            time_by: TimeBy::Wall,
                        })
                        .unwrap_or_else(|f| panic!("{}: {f:?}", bots[b].0));
                    pos.play(answer.mv).expect("a legal move");
                    moves.push(answer.mv);
                    times[b].push(answer.think);
                }
            }
        }
        for engine in engines {
            engine.quit(Duration::from_secs(1)).await;
        }
    });
    let _ = std::fs::remove_dir_all(&logs);
    let rust_mean = mean(&times[2]);
    println!("{games} games of {rules} per bot, self-play; time per sow from `go` to `bestmove`:");
    println!(
        "{:<11} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}",
        "bot", "sows", "mean µs", "median", "p90", "p99", "max", "mean vs rust"
    );
    for ((name, _), t) in bots.iter().zip(&mut times) {
        t.sort();
        let q = |f: f64| t[((t.len() - 1) as f64 * f) as usize].as_secs_f64() * 1e6;
        println!(
            "{name:<11} {:>7} {:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>11.1}x",
            t.len(),
            mean(t) * 1e6,
            q(0.5),
            q(0.9),
            q(0.99),
            q(1.0),
            mean(t) / rust_mean
        );
    }
}

fn mean(t: &[Duration]) -> f64 {
    t.iter().map(Duration::as_secs_f64).sum::<f64>() / t.len() as f64
}
