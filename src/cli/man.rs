//! `dab man`: manual pages in roff (clap_mangen): `dab.1` on standard output, or with `--out
//! DIR` one page for dab and one per subcommand (`dab-solve.1`, ...), written atomically.

use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_mangen::Man;

use super::{Cli, CliResult};

#[derive(Args)]
pub struct ManArgs {
    /// Folder to write every page into (dab.1 and dab-<subcommand>.1), e.g. ~/.local/share/man/man1;
    /// without it, dab.1 goes to standard output (`dab man | man -l -`).
    #[arg(long, value_name = "DIR", value_parser = super::out_dir)]
    pub out: Option<PathBuf>,
}

pub fn run(args: ManArgs) -> CliResult {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    // Built, subcommands get their display names (dab-solve) and inherit the version.
    cmd.build();
    let Some(dir) = args.out else {
        Man::new(cmd).render(&mut std::io::stdout())?;
        return Ok(());
    };
    let mut files = Vec::new();
    for page in std::iter::once(cmd.clone()).chain(cmd.get_subcommands().cloned()) {
        let man = Man::new(page);
        let mut text = Vec::new();
        man.render(&mut text)?;
        let path = dir.join(man.get_filename());
        dab::support::write_atomic(&path, &text).map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
        files.push(path);
    }
    super::wrote(&dir, &files);
    Ok(())
}
