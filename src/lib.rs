//! `dab`: complete solutions of Dots-and-Boxes by retrograde analysis over partitions of the
//! lines (Wilson's method), with the tools to plan and run them in parallel.

pub mod analysis;
pub mod bench;
pub mod board;
pub mod kernel;
pub mod key;
pub mod partitions;
pub mod position;
pub mod solve;
pub mod space;
pub mod twins;
