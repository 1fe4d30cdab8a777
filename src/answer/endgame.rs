//! Endgames made only of loops and long chains, after Allcock ("Best play in Dots & Boxes
//! endgames", 2018): the component lists (`C3 C3 L4 L8`), the controlled value c(G), the value
//! v(G) by Theorem 4.1 with Theorem 4.2 as its twin and a memoised minimax over component
//! multisets as the slow twin of both, the opener's choice (Theorem 1.1) and the controller's
//! (Theorem 1.3); and the reading of a board position into such components.
//!
//! Two sign conventions meet here. Allcock's v(G) is the margin by which the *controller* beats
//! the *opener* (never negative). In a position made only of loops and long chains every move
//! opens a component, so the player to move is the opener and the project's value (net future
//! boxes for the player to move) is -v(G); a move opening C is worth -v(G;C) to its player.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::game::{Board, Line, LineSet, MoveReport, Position};

/// One unopened component: a chain of k >= 3 boxes or a loop of even k >= 4 boxes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    /// A chain of this many boxes (at least 3).
    Chain(u32),
    /// A loop of this many boxes (even, at least 4).
    Loop(u32),
}

impl Component {
    /// Boxes in the component.
    pub fn boxes(self) -> i64 {
        match self {
            Component::Chain(k) | Component::Loop(k) => k as i64,
        }
    }

    /// Whether it is a loop (rather than a chain).
    pub fn is_loop(self) -> bool {
        matches!(self, Component::Loop(_))
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Component::Chain(k) => write!(f, "C{k}"),
            Component::Loop(k) => write!(f, "L{k}"),
        }
    }
}

/// Why a component list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The list names no component.
    #[error("the component list is empty; give components such as \"C3 C3 L4 L8\"")]
    Empty,
    /// A token (given) is not `C<k>` or `L<k>` with k a number.
    #[error("component '{0}' is not C<k> (a chain of k boxes) or L<k> (a loop of k boxes)")]
    Syntax(String),
    /// A component (the token given) of more than [`MAX_LEN`] boxes.
    #[error("component '{0}' is too long: a chain or a loop has at most {MAX_LEN} boxes")]
    TooLong(String),
    /// A chain (the token given) of fewer than 3 boxes.
    #[error("component '{0}': a chain needs at least 3 boxes (shorter chains are not part of these endgames)")]
    ShortChain(String),
    /// A loop (the token given) of an odd number of boxes or fewer than 4.
    #[error("component '{0}': a loop needs an even number of boxes, at least 4")]
    BadLoop(String),
}

/// Longest component a list may name: far beyond any board, small enough that sums never
/// overflow.
const MAX_LEN: u32 = 1_000_000;

/// A multiset of components, kept sorted (chains first, shortest first).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Endgame(Vec<Component>);

impl fmt::Display for Endgame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.0.iter().map(Component::to_string).collect();
        write!(f, "{}", names.join(" "))
    }
}

/// Which case of Theorem 4.1 gave the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueCase {
    /// No component: the value is 0.
    Empty,
    /// (1): c >= 2.
    Controlled,
    /// (2): c = 0 with a 4-loop, not 4-loop + 3 + 3.
    FourLoopZero,
    /// (3a): no 3-chain (or one, size = 3 mod 4), c + 4f >= 2.
    Mod8,
    /// (3b): the same with c + 4f < 2.
    ManySixLoops,
    /// (4): everything else.
    Parity,
}

impl fmt::Display for ValueCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValueCase::Empty => "empty endgame",
            ValueCase::Controlled => "Theorem 4.1(1)",
            ValueCase::FourLoopZero => "Theorem 4.1(2)",
            ValueCase::Mod8 => "Theorem 4.1(3a)",
            ValueCase::ManySixLoops => "Theorem 4.1(3b)",
            ValueCase::Parity => "Theorem 4.1(4)",
        })
    }
}

/// Which rule of Theorem 1.1 picked the component to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpenRule {
    /// Case (1), (2) or (3) of the theorem: the shortest loop.
    ShortestLoop(u8),
    /// The standard move: a 3-chain, else a shortest loop, else a shortest chain.
    Standard,
}

impl fmt::Display for OpenRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenRule::ShortestLoop(case) => write!(f, "Theorem 1.1({case}): the shortest loop"),
            OpenRule::Standard => {
                f.write_str("Theorem 1.1, the standard move (a 3-chain, else a shortest loop, else a shortest chain)")
            }
        }
    }
}

/// The counts of an endgame that Theorem 4.1 reads: all it needs, kept without allocating
/// (the search engine values its loops-and-chains leaves from one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Boxes not yet claimed.
    pub size: i64,
    /// Chains (of 3 boxes or more).
    pub chains: usize,
    /// Loops.
    pub loops: usize,
    /// θ: chains of 3 boxes.
    pub three_chains: usize,
    /// f: loops of 4 boxes.
    pub four_loops: usize,
}

impl Tally {
    /// The counts with one more component.
    pub fn with(mut self, c: Component) -> Tally {
        self.size += c.boxes();
        match c {
            Component::Chain(k) => {
                self.chains += 1;
                self.three_chains += usize::from(k == 3);
            }
            Component::Loop(k) => {
                self.loops += 1;
                self.four_loops += usize::from(k == 4);
            }
        }
        self
    }

    fn terminal_bonus(&self) -> i64 {
        let parts = self.chains + self.loops;
        if parts == 0 {
            0
        } else if self.loops == parts {
            8
        } else if self.loops > 0 && self.loops + self.three_chains == parts {
            6
        } else {
            4
        }
    }

    fn controlled_value(&self) -> i64 {
        self.size - 4 * self.chains as i64 - 8 * self.loops as i64 + self.terminal_bonus()
    }

    /// v(G) by Theorem 4.1 (the explicit values), with the case that gave it.
    pub fn value(&self) -> (i64, ValueCase) {
        if self.chains + self.loops == 0 {
            return (0, ValueCase::Empty);
        }
        let (c, size, theta, f) = (self.controlled_value(), self.size, self.three_chains, self.four_loops as i64);
        if c >= 2 {
            return (c, ValueCase::Controlled);
        }
        // 4-loop + 3 + 3 is the exception to case (2).
        let four_three_three = self.chains == 2 && theta == 2 && self.loops == 1 && f == 1;
        if c == 0 && f > 0 && !four_three_three {
            return (0, ValueCase::FourLoopZero);
        }
        if theta == 0 || (theta == 1 && size.rem_euclid(4) == 3) {
            if c + 4 * f >= 2 {
                let v = match c.rem_euclid(8) {
                    0 => 0,
                    1 | 7 => 1,
                    2 | 6 => 2,
                    3 | 5 => 3,
                    _ => 4,
                };
                return (v, ValueCase::Mod8);
            }
            let v = match (size.rem_euclid(4), f % 2 == 1) {
                (1 | 3, true) => 1,
                (1 | 3, false) => 3,
                (2, _) => 2,
                (_, true) => 0,
                (_, false) => 4,
            };
            return (v, ValueCase::ManySixLoops);
        }
        (if size % 2 == 1 { 1 } else { 2 }, ValueCase::Parity)
    }
}

impl Endgame {
    /// The endgame of these components, in any order.
    pub fn new(mut components: Vec<Component>) -> Endgame {
        components.sort();
        Endgame(components)
    }

    /// Reads a list such as `C3 C3 L4 L8` (spaces or commas between components).
    pub fn parse(text: &str) -> Result<Endgame, ParseError> {
        let tokens: Vec<&str> = text.split([' ', ',', '\t', '\n']).filter(|t| !t.is_empty()).collect();
        if tokens.is_empty() {
            return Err(ParseError::Empty);
        }
        let components = tokens.into_iter().map(parse_component).collect::<Result<Vec<_>, _>>()?;
        Ok(Endgame::new(components))
    }

    /// The components, chains first, shortest first.
    pub fn components(&self) -> &[Component] {
        &self.0
    }

    /// Whether no component is left.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Boxes not yet claimed.
    pub fn size(&self) -> i64 {
        self.0.iter().map(|c| c.boxes()).sum()
    }

    fn count(&self, c: Component) -> usize {
        self.0.iter().filter(|&&d| d == c).count()
    }

    /// θ: the number of 3-chains.
    pub fn three_chains(&self) -> usize {
        self.count(Component::Chain(3))
    }

    /// f: the number of 4-loops.
    pub fn four_loops(&self) -> usize {
        self.count(Component::Loop(4))
    }

    /// s: the number of 6-loops.
    pub fn six_loops(&self) -> usize {
        self.count(Component::Loop(6))
    }

    fn loops(&self) -> usize {
        self.0.iter().filter(|c| c.is_loop()).count()
    }

    /// Whether the endgame is exactly these components.
    fn is(&self, components: &[Component]) -> bool {
        *self == Endgame::new(components.to_vec())
    }

    /// What the theorems read from the list: its counts.
    pub fn tally(&self) -> Tally {
        self.0.iter().fold(Tally::default(), |t, &c| t.with(c))
    }

    /// tb(G): 0 when empty, 8 for loops only, 6 for loops and 3-chains only, 4 otherwise.
    pub fn terminal_bonus(&self) -> i64 {
        self.tally().terminal_bonus()
    }

    /// c(G) = size - 4 (long chains) - 8 (loops) + tb(G): the controller's margin when she keeps
    /// control except at the end (Berlekamp's control strategy).
    pub fn controlled_value(&self) -> i64 {
        self.tally().controlled_value()
    }

    /// The endgame with one component `c` removed, if it has one.
    pub fn without(&self, c: Component) -> Option<Endgame> {
        let i = self.0.iter().position(|&d| d == c)?;
        let mut rest = self.0.clone();
        rest.remove(i);
        Some(Endgame(rest))
    }

    /// v(G) by Theorem 4.1 (the explicit values), with the case that gave it.
    pub fn value(&self) -> (i64, ValueCase) {
        self.tally().value()
    }

    /// v(G) by Theorem 4.2 (the procedural values): the twin of [`Endgame::value`]. Case (3)
    /// starts from the controlled value of the core G0 (loops of 8 or more, and the chains of 4
    /// or more, or the lone 3-chain when there is no other chain) and applies Σ once per
    /// 6-loop, Θ for a 3-chain outside the core and Φ once per 4-loop.
    pub fn value_procedural(&self) -> i64 {
        use Component::{Chain, Loop};
        if self.is_empty() {
            return 0;
        }
        let (c, size, theta) = (self.controlled_value(), self.size(), self.three_chains());
        if c >= 2 {
            return c;
        }
        if c == 0 && self.0.contains(&Loop(4)) && !self.is(&[Loop(4), Chain(3), Chain(3)]) {
            return 0;
        }
        if theta == 0 || (theta == 1 && size % 4 == 3) {
            let long_chains: Vec<Component> =
                self.0.iter().copied().filter(|&d| matches!(d, Chain(k) if k >= 4)).collect();
            let mut core: Vec<Component> = self.0.iter().copied().filter(|&d| matches!(d, Loop(k) if k >= 8)).collect();
            if long_chains.is_empty() {
                core.extend(self.0.iter().copied().filter(|&d| d == Chain(3)));
            } else {
                core.extend(long_chains);
            }
            let core = Endgame::new(core);
            let theta_rest = theta - core.three_chains();
            let sigma = |x: i64| (x - 4).abs() + 2;
            let phi = |x: i64| (x - 4).abs();
            let mut v = core.controlled_value();
            for _ in 0..self.six_loops() {
                v = sigma(v);
            }
            v -= theta_rest as i64;
            for _ in 0..self.four_loops() {
                v = phi(v);
            }
            return v;
        }
        if size % 2 == 1 { 1 } else { 2 }
    }

    /// Theorem 1.1: the component the opener should open, and the rule that chose it.
    pub fn opener_choice(&self) -> Option<(Component, OpenRule)> {
        use Component::{Chain, Loop};
        let shortest_loop = self.0.iter().copied().find(|c| c.is_loop());
        let shortest_chain = self.0.first().copied().filter(|c| !c.is_loop());
        let (c, theta, f) = (self.controlled_value(), self.three_chains(), self.four_loops());
        let only_loops_besides_three = theta == 1 && self.loops() + 1 == self.0.len();
        if let Some(l) = shortest_loop {
            if c >= 2 && only_loops_besides_three {
                return Some((l, OpenRule::ShortestLoop(1)));
            }
            if (-1..=1).contains(&c) && f > 0 && !self.is(&[Loop(4), Chain(3), Chain(3), Chain(3)]) {
                return Some((l, OpenRule::ShortestLoop(2)));
            }
            // G = 4-loop + 3-chain + H, H without 3-chains and of a size divisible by 4.
            if c <= -2 && f > 0 && theta == 1 && (self.size() - 7) % 4 == 0 {
                return Some((l, OpenRule::ShortestLoop(3)));
            }
        }
        let standard = if theta > 0 { Some(Chain(3)) } else { shortest_loop.or(shortest_chain) };
        standard.map(|s| (s, OpenRule::Standard))
    }

    /// What opening `c` leads to (`c` must be a component): v(G;C) and the controller's reply.
    pub fn after_opening(&self, c: Component) -> Option<Opened> {
        let rest = self.without(c)?;
        let (v_rest, _) = rest.value();
        let (handout, limit) = if c.is_loop() { (4, 4) } else { (2, 2) };
        let margin = c.boxes() - handout + (v_rest - handout).abs();
        // Theorem 1.3: "v(G-C) > 4" is recognised as c(G-C) > 4 for loops.
        let keeps = if c.is_loop() { rest.controlled_value() > limit } else { v_rest > limit };
        Some(Opened { component: c, v_rest, margin, keeps_control: keeps })
    }

    /// The distinct components, in order.
    pub fn kinds(&self) -> Vec<Component> {
        let mut kinds = self.0.clone();
        kinds.dedup();
        kinds
    }
}

fn parse_component(token: &str) -> Result<Component, ParseError> {
    let syntax = || ParseError::Syntax(token.to_string());
    let (kind, digits) = token.split_at_checked(1).ok_or_else(syntax)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax());
    }
    let chain = match kind {
        "C" | "c" => true,
        "L" | "l" => false,
        _ => return Err(syntax()),
    };
    // Digits alone: what does not parse overflows u64, so it is too long as well.
    let k = match digits.parse::<u64>() {
        Ok(k) if k <= u64::from(MAX_LEN) => k as u32,
        _ => return Err(ParseError::TooLong(token.to_string())),
    };
    match chain {
        true if k >= 3 => Ok(Component::Chain(k)),
        true => Err(ParseError::ShortChain(token.to_string())),
        false if k >= 4 && k.is_multiple_of(2) => Ok(Component::Loop(k)),
        false => Err(ParseError::BadLoop(token.to_string())),
    }
}

/// The consequences of the opener opening one component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The component opened.
    pub component: Component,
    /// v(G-C): the value of what is left.
    pub v_rest: i64,
    /// v(G;C): the controller's margin from here, playing on optimally.
    pub margin: i64,
    /// Theorem 1.3: whether the controller keeps control (the hard-hearted handout) or takes
    /// every box and opens next.
    pub keeps_control: bool,
}

/// The slow twin: the loops-and-chains game played out over component multisets. The opener
/// opens a component; the controller either keeps control (takes all but 2 of a chain or all
/// but 4 of a loop, and the opener must open again) or takes all and becomes the opener.
#[derive(Default)]
pub struct Minimax {
    memo: HashMap<Endgame, i64>,
}

impl Minimax {
    /// v(G): the controller's margin over the opener.
    pub fn value(&mut self, g: &Endgame) -> i64 {
        if g.is_empty() {
            return 0;
        }
        if let Some(&v) = self.memo.get(g) {
            return v;
        }
        let v = g.kinds().into_iter().map(|c| self.margin(g, c)).min().expect("a nonempty endgame");
        self.memo.insert(g.clone(), v);
        v
    }

    /// v(G;C): the controller's margin once the opener has opened `c`.
    pub fn margin(&mut self, g: &Endgame, c: Component) -> i64 {
        let rest = g.without(c).expect("a component of the endgame");
        let later = self.value(&rest);
        let handout = if c.is_loop() { 4 } else { 2 };
        let keep = (c.boxes() - handout) - handout + later;
        let give_up = c.boxes() - later;
        keep.max(give_up)
    }
}

/// A component found on a board.
#[derive(Clone, Debug, Serialize)]
pub struct Found {
    /// `C<k>` or `L<k>`.
    pub component: String,
    /// Its boxes as `(r,c)`, in order along it.
    pub boxes: Vec<String>,
    /// Its undrawn lines (`undrawn_lines` in JSON: `lines` elsewhere counts them).
    #[serde(rename = "undrawn_lines")]
    pub lines: Vec<String>,
    /// The component itself (not in the JSON).
    #[serde(skip)]
    pub kind: Component,
    /// Its undrawn lines as a set (not in the JSON).
    #[serde(skip)]
    pub line_set: LineSet,
}

/// What stops the theorems from applying to a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the endgame theorems need a position made only of loops, chains of 3 or more boxes and completed boxes: {}", shown(.0))]
pub struct NotLoopsAndChains(pub Vec<String>);

/// The first few obstacles (an early position has one per box).
fn shown(problems: &[String]) -> String {
    const MOST: usize = 4;
    let mut text = problems.iter().take(MOST).cloned().collect::<Vec<_>>().join("; ");
    if problems.len() > MOST {
        text += &format!("; and {} more", problems.len() - MOST);
    }
    text
}

/// A box as `(r,c)`.
fn box_name(board: Board, b: usize) -> String {
    format!("({},{})", b / board.cols(), b % board.cols())
}

/// The loops and chains of a position, or every structure that is neither.
pub fn components(pos: Position) -> Result<Vec<Found>, NotLoopsAndChains> {
    let board = pos.board;
    let undrawn_sides =
        |b: usize| board.box_sides(b).into_iter().filter(|&l| !pos.drawn.contains(l)).collect::<Vec<Line>>();
    let mut problems = Vec::new();
    for b in 0..board.boxes() {
        match undrawn_sides(b).len() {
            1 => problems.push(format!("a box with 3 drawn sides at {} (it can be taken now)", box_name(board, b))),
            3 => problems.push(format!("a box with 3 undrawn sides at {}", box_name(board, b))),
            4 => problems.push(format!("a box with 4 undrawn sides at {}", box_name(board, b))),
            _ => {}
        }
    }
    if !problems.is_empty() {
        return Err(NotLoopsAndChains(problems));
    }
    // Every unclaimed box now has two undrawn sides, each leading to the border or to another
    // such box: chains run from border to border, loops close on themselves.
    let next = |b: usize, through: Line| board.line_boxes(through).into_iter().find(|&o| o != b);
    let mut seen = vec![false; board.boxes()];
    let mut found = Vec::new();
    let walk = |start: usize, entry: Option<Line>, seen: &mut Vec<bool>| {
        let (mut boxes, mut lines) = (Vec::new(), LineSet::EMPTY);
        let (mut b, mut came) = (start, entry);
        loop {
            seen[b] = true;
            boxes.push(b);
            let Some(out) = undrawn_sides(b).into_iter().find(|&l| Some(l) != came) else { break };
            lines = lines.with(out);
            match next(b, out) {
                Some(o) if !seen[o] => (b, came) = (o, Some(out)),
                _ => break,
            }
        }
        (boxes, lines)
    };
    for b in 0..board.boxes() {
        let sides = undrawn_sides(b);
        let Some(&border) = sides.iter().find(|&&l| board.line_boxes(l).len() == 1) else { continue };
        if seen[b] {
            continue;
        }
        let (boxes, lines) = walk(b, Some(border), &mut seen);
        let lines = lines.with(border);
        if boxes.len() < 3 {
            let names: Vec<String> = boxes.iter().map(|&x| box_name(board, x)).collect();
            let plural = if boxes.len() == 1 { "box" } else { "boxes" };
            problems.push(format!("a chain of {} {plural} at {}", boxes.len(), names.join(" ")));
        }
        found.push((boxes.clone(), lines, Component::Chain(boxes.len() as u32)));
    }
    for b in 0..board.boxes() {
        if seen[b] || undrawn_sides(b).is_empty() {
            continue;
        }
        let (boxes, lines) = walk(b, None, &mut seen);
        found.push((boxes.clone(), lines, Component::Loop(boxes.len() as u32)));
    }
    if !problems.is_empty() {
        return Err(NotLoopsAndChains(problems));
    }
    Ok(found
        .into_iter()
        .map(|(boxes, lines, kind)| Found {
            component: kind.to_string(),
            boxes: boxes.iter().map(|&x| box_name(board, x)).collect(),
            lines: lines.iter().map(|l| board.line_name(l)).collect(),
            kind,
            line_set: lines,
        })
        .collect())
}

/// The theorems' answer for a component list, in both conventions.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The component list, sorted (`C3 L4 L8`); `component_list` in JSON, apart from a
    /// position's list of the components found.
    #[serde(rename = "component_list")]
    pub components: String,
    /// Boxes in all the components.
    pub size: i64,
    /// θ: the number of 3-chains.
    pub three_chains: usize,
    /// f: the number of 4-loops.
    pub four_loops: usize,
    /// s: the number of 6-loops.
    pub six_loops: usize,
    /// tb(G): 0 when empty, 8 for loops only, 6 for loops and 3-chains only, 4 otherwise.
    pub terminal_bonus: i64,
    /// c(G): the controller's margin under the control strategy (Allcock's convention).
    pub controlled_value: i64,
    /// v(G) by Theorem 4.1: the controller's margin over the opener (Allcock's convention).
    pub v: i64,
    /// Which case of Theorem 4.1 applied.
    pub value_case: String,
    /// v(G) by Theorem 4.2 (always equal to `v`).
    pub v_procedural: i64,
    /// -v(G): net future boxes for the player to move, who is the opener (the project's
    /// convention, as in `dab solve`).
    pub value: i64,
    /// The component to open (Theorem 1.1); none for an empty endgame.
    pub open: Option<String>,
    /// The rule of Theorem 1.1 that chose `open`.
    pub open_rule: Option<String>,
    /// For each distinct component, what happens once it is opened.
    pub opened: Vec<OpenedReport>,
    /// Which fields follow which sign convention: [`CONVENTION`].
    pub convention: &'static str,
}

/// What opening one component leads to, as reported.
#[derive(Clone, Debug, Serialize)]
pub struct OpenedReport {
    /// The component opened, as `C<k>` or `L<k>`.
    pub component: String,
    /// v(G-C), Allcock's convention.
    pub v_rest: i64,
    /// v(G;C): the controller's margin once C is opened (Allcock's convention).
    pub v_opened: i64,
    /// -v(G;C): the value of opening C for the player who opens it (project convention).
    pub move_value: i64,
    /// Theorem 1.3: `keep` (hard-hearted handout) or `give up` (take all, then open).
    pub controller: &'static str,
}

/// The sign convention of each value of a [`Report`], carried in it so that its JSON says so.
pub(crate) const CONVENTION: &str = "v, v_procedural, controlled_value, v_rest and v_opened are Allcock's: the controller's margin over the opener; value and move_value are the project's: net future boxes for the player to move (the opener), so value = -v";

/// Everything the theorems say about a component list.
pub fn report(g: &Endgame) -> Report {
    let (v, case) = g.value();
    let choice = g.opener_choice();
    let opened = g
        .kinds()
        .into_iter()
        .filter_map(|c| g.after_opening(c))
        .map(|o| OpenedReport {
            component: o.component.to_string(),
            v_rest: o.v_rest,
            v_opened: o.margin,
            move_value: -o.margin,
            controller: if o.keeps_control { "keep" } else { "give up" },
        })
        .collect();
    Report {
        components: g.to_string(),
        size: g.size(),
        three_chains: g.three_chains(),
        four_loops: g.four_loops(),
        six_loops: g.six_loops(),
        terminal_bonus: g.terminal_bonus(),
        controlled_value: g.controlled_value(),
        v,
        value_case: case.to_string(),
        v_procedural: g.value_procedural(),
        value: -v,
        open: choice.map(|(c, _)| c.to_string()),
        open_rule: choice.map(|(_, r)| r.to_string()),
        opened,
        convention: CONVENTION,
    }
}

/// The theorems' answer for a position.
#[derive(Clone, Debug, Serialize)]
pub struct PositionReport {
    /// The board size, as `MxN`.
    pub board: String,
    /// The position, as a line string (named as a plan names its root).
    pub root: String,
    /// The loops and chains found on the board.
    pub components: Vec<Found>,
    /// The theorems' answer for their component list.
    pub endgame: Report,
    /// Net future boxes for the player to move (project convention): -v(G).
    pub value: i32,
    /// Every undrawn line: opening its component is worth -v(G;C) to the mover.
    pub moves: Vec<MoveReport>,
    /// The names of the moves of best value.
    pub best: Vec<String>,
    /// The line Theorem 1.1 draws: the lowest line of the component it opens.
    pub play: Option<String>,
}

/// Answers a position made only of loops, long chains and completed boxes.
pub fn analyse_position(pos: Position) -> Result<PositionReport, NotLoopsAndChains> {
    let found = components(pos)?;
    let g = Endgame::new(found.iter().map(|f| f.kind).collect());
    let endgame = report(&g);
    let board = pos.board;
    let mut moves: Vec<MoveReport> = Vec::new();
    for f in &found {
        let margin = g.after_opening(f.kind).expect("a component of the endgame").margin;
        moves.extend(f.line_set.iter().map(|l| MoveReport::new(pos, l, 0, -margin as i32)));
    }
    moves.sort_by_key(|m| m.index);
    let value = -endgame.v as i32;
    let best = crate::game::best_moves(&moves, value);
    let play = g
        .opener_choice()
        .and_then(|(c, _)| found.iter().filter(|f| f.kind == c).filter_map(|f| f.line_set.iter().next()).min());
    Ok(PositionReport {
        board: board.to_string(),
        root: pos.to_line_string(),
        components: found,
        endgame,
        value,
        moves,
        best,
        play: play.map(|l| board.line_name(l)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(s: &str) -> Endgame {
        Endgame::parse(s).unwrap()
    }

    #[test]
    fn paper_examples() {
        // Example 1.2: five 3-chains, a 4-loop and an 8-loop: c = 27 - 20 - 16 + 6 = -3.
        assert_eq!(g("C3 C3 C3 C3 C3 L4 L8").controlled_value(), -3);
        // Section 1: v(3 + 4l + 8l) = 1, open the 4-loop.
        let e = g("C3 L4 L8");
        assert_eq!(e.value().0, 1);
        assert_eq!(e.opener_choice().unwrap().0, Component::Loop(4));
        // Section 2: v(3^n) = 0, 3, 2, 1, 2, 1, 2, 1.
        for (n, v) in [0, 3, 2, 1, 2, 1, 2, 1].into_iter().enumerate() {
            let e = Endgame::new(vec![Component::Chain(3); n]);
            assert_eq!((e.value().0, e.value_procedural()), (v, v), "3^{n}");
        }
    }

    #[test]
    fn bad_tokens_are_named() {
        assert_eq!(Endgame::parse("C3 C2 L4").unwrap_err(), ParseError::ShortChain("C2".into()));
        assert_eq!(Endgame::parse("L5").unwrap_err(), ParseError::BadLoop("L5".into()));
        assert_eq!(Endgame::parse("C3 X4").unwrap_err(), ParseError::Syntax("X4".into()));
        assert_eq!(Endgame::parse("C").unwrap_err(), ParseError::Syntax("C".into()));
        assert_eq!(Endgame::parse("C1000000").unwrap(), Endgame::new(vec![Component::Chain(MAX_LEN)]));
        assert_eq!(Endgame::parse("L1000002").unwrap_err(), ParseError::TooLong("L1000002".into()));
        assert_eq!(Endgame::parse("  ").unwrap_err(), ParseError::Empty);
        assert_eq!(g("L8, C3 l4").to_string(), "C3 L4 L8");
    }
}
