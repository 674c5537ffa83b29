//! Asking a bot what it declares before any game: the options a tune or a calibration sets must
//! be the bot's own, and its protocol must have options at all (`tune --bot`,
//! `calibrate --bot`).

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::engine::{BotLog, Engine};
use crate::protocol::OptionDecl;
use crate::vocab::{BotSpec, Protocol};

/// Refuses a player whose protocol has no options: `what` (a tune's parameters, a calibration's
/// knob) sets options, which only the arena's own protocol carries.
pub fn refuse_optionless(spec: &BotSpec, what: &str) -> Result<()> {
    if spec.protocol != Protocol::Mancala {
        bail!(
            "{what} sets options of the bot, and the {} protocol has none: only a bot of the \
             arena's own protocol (mancala) takes options (docs/protocols.md)",
            spec.protocol
        );
    }
    Ok(())
}

/// Starts `spec` once (its stderr into `dir/logs/probe.log`) with its fixed options and returns
/// the options it declares; `what` says why, as [`refuse_optionless`].
pub fn declared_options(spec: &BotSpec, what: &str, dir: &Path) -> Result<Vec<OptionDecl>> {
    refuse_optionless(spec, what)?;
    let logs = crate::run_folder::logs::logs_dir(dir);
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let log = BotLog::new(&logs.join("probe.log"), 1 << 20)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let timeout = Duration::from_millis(crate::vocab::config::DEFAULT_HANDSHAKE_MS);
        let engine = Engine::start(spec, &log, timeout, None)
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "player `{}` cannot start (asked for the options it declares): {e}",
                    spec.name
                )
            })?;
        let options = engine.info.options.clone();
        engine.quit(Duration::from_millis(500)).await;
        Ok(options)
    })
}

/// The declaration of option `name` (any case), or an error naming the options the bot does
/// declare; `flag` names where `name` was asked for.
pub fn find_declared<'a>(
    declared: &'a [OptionDecl],
    name: &str,
    flag: &str,
) -> Result<&'a OptionDecl> {
    declared
        .iter()
        .find(|d| d.name.eq_ignore_ascii_case(name))
        .with_context(|| {
            let names: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
            format!(
                "{flag}: the bot declares no option `{name}`; it declares {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        })
}
