//! The bundled bots: search algorithms as library code, each binary in `src/bin/` only the
//! protocol loop ([`engine_loop::run`]) around one of them. See docs/bots.md.

pub mod engine_loop;
pub mod random;
