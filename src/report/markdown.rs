//! `summary.md`: the results as GitHub-flavoured Markdown, to paste into a pull request: the
//! gate's verdict and table (gate runs), the ratings table, the first-mover advantage, the SPRT
//! verdict (SPRT runs), the pairwise table,
//! the mistake meter (after `arena analyse`), warnings, and the command that played the games.

use std::fmt::Write as _;

use super::input::{command_line, ReportInput};
use super::tables::{
    brackets_table, gate_table, gate_words, mistakes_table, pairwise_table, ratings_table, signed,
};
use super::text::escape_markdown as escape;

/// The document.
pub fn render(input: &ReportInput<'_>) -> String {
    let s = input.summary;
    let mut m = String::new();
    let name = input.name();
    let _ = writeln!(m, "### mancala-arena: {}\n", escape(&name));
    let _ = writeln!(
        m,
        "{} games in {} game pairs; Elo anchored at {}, {:.0}% intervals ({}).\n",
        s.games,
        s.game_pairs,
        escape(&s.anchor),
        s.level * 100.0,
        escape(&s.interval_source())
    );
    if let Some(sprt) = &input.sprt {
        let _ = writeln!(
            m,
            "**SPRT: {}** after {} pairs. {}. (LLR {:+.3}, bounds [{:.3}, {:.3}]; H0 {} / H1 {} \
             Elo, {}, α = {}, β = {}).{}\n",
            sprt.status.result.verdict(sprt.elo0, sprt.elo1),
            sprt.pairs,
            escape(&sprt.estimate_words()),
            sprt.status.llr,
            sprt.status.lower,
            sprt.status.upper,
            sprt.elo0,
            sprt.elo1,
            escape(&sprt.model),
            sprt.alpha,
            sprt.beta,
            sprt.link_check
                .map_or(String::new(), |c| format!("\n\n{}", escape(&c.describe())))
        );
    }
    if let Some(gate) = &input.gate {
        let _ = writeln!(
            m,
            "**Gate: {}** (exit code {}).\n",
            gate_words(gate.verdict),
            gate.exit_code
        );
        m.push_str(&gate_table(gate).markdown());
        m.push('\n');
    }
    m.push_str(&ratings_table(&s.ratings, &s.random_moves).markdown());
    if let Some(margin) = &s.margin {
        let _ = writeln!(m, "\n{}\n", escape(&super::rate::margin_words(margin)));
        m.push_str(&super::tables::margin_table(margin).markdown());
    }
    let fm = &s.first_move_advantage;
    let _ = writeln!(
        m,
        "\nFirst-mover advantage: {} Elo [{}, {}]; first players scored {:.1}% of the points.\n",
        signed(fm.elo),
        signed(fm.ci_low),
        signed(fm.ci_high),
        fm.first_player_score * 100.0
    );
    if !s.pairwise.is_empty() {
        m.push_str(&pairwise_table(&s.pairwise, s.interval_method == "posterior").markdown());
        m.push('\n');
    }
    if let Some(a) = &input.analysis {
        m.push_str("Mistake meter (sows checked with the exact solver, `arena analyse`):\n\n");
        m.push_str(&mistakes_table(&a.players).markdown());
        m.push('\n');
        if !a.brackets.is_empty() {
            m.push_str("Mistakes against rating:\n\n");
            m.push_str(&brackets_table(&a.brackets).markdown());
            m.push('\n');
        }
    }
    for w in &s.warnings {
        let _ = writeln!(m, "> warning: {}", escape(w));
    }
    if !s.warnings.is_empty() {
        m.push('\n');
    }
    if let Some(command) = input.run.as_ref().map(command_line).or(input.pgn_command()) {
        let _ = writeln!(
            m,
            "<details><summary>command</summary>\n\n```sh\n{}\n```\n</details>",
            command.replace("```", "` ` `")
        );
    }
    m
}
