//! `dab completions SHELL`: the shell's completion script for every subcommand and flag, on
//! standard output (clap_complete).

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, CliResult};

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell to complete in. Bash: `dab completions bash > ~/.local/share/bash-completion/completions/dab`.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: CompletionsArgs) -> CliResult {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "dab", &mut std::io::stdout());
    Ok(())
}
