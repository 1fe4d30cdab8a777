//! `dab`: complete solutions of Dots-and-Boxes by retrograde analysis over partitions of the
//! lines (Wilson's method), with the tools to plan and run them in parallel.
#![warn(unreachable_pub)]

pub mod support;
pub mod game;
pub mod solver;
pub mod sched;
pub mod plan;
pub mod store;
pub mod exec;
pub mod report;
pub mod answer;
pub mod cluster;
pub mod calibrate;
pub mod pipeline;
