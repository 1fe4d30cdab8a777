//! `dab export`: the files that run a plan on a cluster engine (a Slurm submit script, or an
//! HTCondor DAGMan file and its submit files), with absolute paths every node must share.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use dab::cluster::{self, Paths, condor, slurm};

use super::CliResult;

/// The Slurm script's file name in the output folder.
pub const SLURM_SCRIPT: &str = "submit-slurm.sh";

#[derive(Clone, Copy, ValueEnum)]
pub enum Engine {
    Slurm,
    Condor,
}

#[derive(Args)]
pub struct ExportArgs {
    /// The cluster engine: Slurm (one sbatch script of dependent jobs) or HTCondor DAGMan.
    #[arg(value_enum)]
    pub engine: Engine,
    /// The plan (as written by dab plan): a file every node can read, so not '-'.
    #[arg(long, value_name = "FILE")]
    pub plan: PathBuf,
    /// The store base folder, on a filesystem every node shares.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// Folder for the generated files, the tasks' logs and the value (shared too).
    #[arg(long = "out", value_name = "DIR", value_parser = super::out_dir)]
    pub output: PathBuf,
    /// The dab binary the tasks run (default: this one).
    #[arg(long, value_name = "FILE")]
    pub dab: Option<PathBuf>,
}

pub fn run(args: ExportArgs) -> CliResult {
    if args.plan.as_os_str() == "-" {
        return Err("--plan '-': the cluster's tasks read the plan from a file, so give its path".into());
    }
    let (plan, checked) = super::job::load_checked(&args.plan)?;
    let absolute = |p: &PathBuf| std::path::absolute(p).map_err(|e| format!("path '{}': {e}", p.display()));
    let dab = match &args.dab {
        Some(d) => absolute(d)?,
        None => std::env::current_exe().map_err(|e| format!("cannot find this dab binary: {e}"))?,
    };
    let paths = Paths { dab, plan: absolute(&args.plan)?, store: absolute(&args.store)?, out: absolute(&args.output)? };
    match args.engine {
        Engine::Slurm => {
            slurm::check(&paths)?;
            let path = paths.out.join(SLURM_SCRIPT);
            let tasks = plan.checked_tasks(&checked).map_err(|e| format!("plan '{}': {e}", args.plan.display()))?;
            let script = if tasks.is_empty() {
                slurm::script(&checked, &paths)
            } else {
                slurm::task_script(&checked, &tasks, plan.threads, plan.predicted_peak_memory, &paths)
            };
            cluster::write(&path, &script)?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("cannot make '{}' executable: {e}", path.display()))?;
            println!("wrote {}: run it where sbatch works (again to resume)", path.display());
        }
        Engine::Condor => {
            condor::check(&paths)?;
            let tasks = plan.checked_tasks(&checked).map_err(|e| format!("plan '{}': {e}", args.plan.display()))?;
            let done = condor::in_store(&checked, &paths.store);
            let marked = condor::done_in_store(&checked, &paths.store);
            let export = match &plan.cluster {
                Some(c) if !tasks.is_empty() => condor::task_export(
                    &checked,
                    &tasks,
                    plan.threads,
                    c.nodes,
                    plan.predicted_peak_memory,
                    &paths,
                    &marked,
                ),
                _ => condor::export(&checked, plan.threads, &paths, &done),
            };
            for (name, text) in &export.files {
                cluster::write(&paths.out.join(name), text)?;
            }
            let logs = paths.out.join("logs");
            std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create '{}': {e}", logs.display()))?;
            println!("wrote {} in {}", condor::DAG, paths.out.display());
            println!("submit with: cd {} && {}", paths.out.display(), export.command);
        }
    }
    Ok(())
}
