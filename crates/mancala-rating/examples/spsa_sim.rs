//! The SPSA simulation benchmark (docs/tuning.md): on a simulated bot whose Elo is a known
//! quadratic of its parameters (`mancala_rating::spsa::sim::problem`), how many game pairs a
//! tune needs to end within 5 Elo of the optimum, for 2 and 8 parameters, with fishtest's
//! default settings and with `arena tune`'s. Run it in release:
//!
//! ```sh
//! cargo run --release -p mancala-rating --example spsa_sim
//! ```
//!
//! "Within 5 Elo at B pairs" means at least 80 % of 20 seeded tunes, each planned for B pairs
//! (the schedule depends on B), ended within 5 Elo of the optimum; the table also gives the
//! median deficit at every budget up to 64,000 pairs, then goes on doubling the budget
//! (128,000, 256,000, ... 1,024,000) until the 80 % is reached, with the medians there. Every
//! parameter has c_end 4 on a 0..100 range; the rows differ by r_end (fishtest's usual 0.002,
//! then larger gains). `spsa_sim "K,TAIL;K,TAIL"`
//! compares other settings (pairs per iteration, averaged tail fraction); `spsa_sim margin`
//! plays games that end with seed margins (spread 11 seeds) and compares the arena's defaults
//! with W/D/L results against the same with results from the margins.

use mancala_rating::spsa::sim::{problem, success, Variant};

fn main() {
    let seeds = 20;
    let tolerance = 5.0;
    let budgets = [500u64, 1000, 2000, 4000, 8000, 16000, 32000, 64000];
    // Past the table's budgets, doubling until the 80 % is reached (or a million pairs).
    let beyond = [128_000u64, 256_000, 512_000, 1_024_000];
    // `spsa_sim margin`: games with seed margins (spread 11 seeds), W/D/L results against
    // results from the margins (`arena tune --model margin`), on the same games.
    let margin_mode = std::env::args().nth(1).is_some_and(|a| a == "margin");
    let variants: Vec<(&str, Variant)> = std::env::args()
        .nth(1)
        .filter(|_| !margin_mode)
        .map(|spec| {
            spec.split(';')
                .map(|v| {
                    let (k, t) = v.split_once(',').expect("K,TAIL;K,TAIL");
                    let variant = Variant {
                        pairs_per_iteration: k.parse().expect("K"),
                        tail: t.parse().expect("TAIL"),
                        margins: false,
                    };
                    (
                        &*Box::leak(format!("K={k} tail={t}").into_boxed_str()),
                        variant,
                    )
                })
                .collect()
        })
        .unwrap_or_else(|| {
            if margin_mode {
                vec![
                    ("arena defaults, W/D/L results", Variant::ARENA),
                    ("arena defaults, margin results", Variant::ARENA_MARGIN),
                ]
            } else {
                vec![
                    ("fishtest defaults", Variant::FISHTEST),
                    ("arena tune defaults", Variant::ARENA),
                ]
            }
        });
    println!(
        "r_end | dims | settings | pairs to within {tolerance} Elo (80% of {seeds}) | median deficit (Elo) at {budgets:?} | then at 128k, 256k, ... until reached"
    );
    for (r_end, dims) in [
        (0.002, 2usize),
        (0.002, 8),
        (0.03, 2),
        (0.03, 8),
        (0.1, 2),
        (0.1, 8),
    ] {
        let (mut bot, params) = problem(dims, r_end);
        if margin_mode {
            bot.margin_sd = Some(11.0);
        }
        let start = -bot.elo(&params.iter().map(|p| p.start).collect::<Vec<_>>());
        for (label, variant) in &variants {
            let mut reached = None;
            let mut medians = Vec::new();
            for &b in &budgets {
                let (within, median) = success(&bot, &params, b, *variant, seeds, tolerance);
                if reached.is_none() && within >= 0.8 {
                    reached = Some(b);
                }
                medians.push(format!("{median:.1}"));
            }
            let mut further = Vec::new();
            for &b in &beyond {
                if reached.is_some() {
                    break;
                }
                let (within, median) = success(&bot, &params, b, *variant, seeds, tolerance);
                if within >= 0.8 {
                    reached = Some(b);
                }
                further.push(format!("{median:.1}"));
            }
            println!(
                "{r_end} | {dims} | {label} | {} | start {start:.1}: {} | {}",
                reached.map_or(format!("> {}", beyond[beyond.len() - 1]), |b| b.to_string()),
                medians.join(" "),
                further.join(" ")
            );
        }
    }
}
