//! Search algorithms of the bundled bots.
