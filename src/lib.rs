//! `dab`: complete solutions of Dots-and-Boxes by retrograde analysis over partitions of the
//! lines (Wilson's method), with the tools to plan and run them in parallel.

pub mod analysis;
pub mod bench;
pub mod board;
pub mod calibrate;
pub mod chart;
pub mod cluster;
pub mod compare;
pub mod cost;
pub mod disk;
pub mod endgame;
pub mod endgamebench;
pub mod exec;
pub mod files;
pub mod graph;
pub mod hint;
pub mod kernel;
pub mod key;
pub mod memory;
pub mod partitions;
pub mod plan;
pub mod planner;
pub mod play;
pub mod position;
pub mod query;
pub mod report;
pub mod runbench;
pub mod runner;
pub mod schemes;
pub mod sim;
pub mod simbench;
pub mod solve;
pub mod space;
pub mod store;
pub mod twins;
