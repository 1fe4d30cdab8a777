//! `dab`: complete solutions of Dots-and-Boxes by retrograde analysis over partitions of the
//! lines (Wilson's method), with the tools to plan and run them in parallel.

pub mod answer;
pub mod calibrate;
pub mod cluster;
pub mod exec;
pub mod game;
pub mod pipeline;
pub mod plan;
pub mod report;
pub mod sched;
pub mod solver;
pub mod store;
pub mod support;
