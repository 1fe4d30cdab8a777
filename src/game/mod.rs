//! The game: boards and their line numbering, symmetries, positions and their two
//! text formats, values and move values, Wilson's last-move penalty, the move report every
//! answer prints, long chains and the long chain rule, and a game's record (dab's notation or littlegolem's) replayed. Uses only `support`; everything else builds on it.

mod board;
mod chains;
mod loony;
mod penalty;
mod position;
mod record;
mod symmetry;
mod value;

pub use board::{Board, BoardError, Line, LineCoord, LineSet};
pub use chains::{long_chains, wants_odd_long_chains};
pub use loony::{is_loony, is_loony_position, settle};
pub use penalty::{Penalty, PenaltyError};
pub use position::{FormatError, Position};
pub use record::{Played, Record, RecordError, golem_name, is_golem_record, player_name};
pub use symmetry::Symmetry;
pub use value::{MoveReport, MoveValue, Value, ValueLines, best_moves, move_value};
