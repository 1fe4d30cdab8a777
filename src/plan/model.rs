//! Which cost model prices a plan or an estimate when none is named: the one rule every
//! command and the answers use.

use std::path::Path;
use std::sync::OnceLock;

use crate::sched::{CostError, CostModel, model_name};
use crate::solver::Simd;

/// Where a cost model came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A model file: the one named, or this kernel's in the current folder
    /// (`sims/cost-model.json`, or `sims/cost-model-vbmi.json` where the kernel takes byte
    /// gathers: [`model_name`]).
    File,
    /// The model built into dab for this kernel (measured on another machine): no file was
    /// named and there is none at [`model_name`].
    BuiltIn,
}

/// The cost model at `path`; without one, the model file of the kernel this process runs
/// ([`model_name`]) in the current folder if there is one, else the model built into dab for
/// that kernel.
pub fn load_model(path: Option<&Path>) -> Result<(CostModel, ModelSource), CostError> {
    let default = Path::new(model_name(Simd::current()));
    if path.is_none() && !default.exists() {
        return Ok((CostModel::built_in(), ModelSource::BuiltIn));
    }
    let path = path.unwrap_or(default);
    Ok((CostModel::load(path)?, ModelSource::File))
}

/// The model [`load_model`] finds without a path, or the built-in one where the file there
/// cannot be read: for an estimate that must not fail (an engine's choice, a refusal's price).
/// Read once per process: `auto` prices every answer with it, and `dab serve` answers many.
pub fn model_or_built_in() -> &'static CostModel {
    static MODEL: OnceLock<CostModel> = OnceLock::new();
    MODEL.get_or_init(|| load_model(None).map_or_else(|_| CostModel::built_in(), |(m, _)| m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_model_that_cannot_be_read_is_an_error_naming_it() {
        let err = load_model(Some(Path::new("/nonexistent/model.json"))).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/model.json"), "{err}");
    }
}
