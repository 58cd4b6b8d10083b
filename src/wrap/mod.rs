//! The library half of `spill wrap`.

mod capture;

pub use capture::*;
