//! Which vector instructions the kernel's row path uses, for the whole process: the widest this
//! CPU has, unless a narrower set was chosen (`dab --simd`, or the `DAB_SIMD` variable, which
//! child processes inherit). A cost model prices the kernel of one set (byte gathers or not),
//! so a machine with AVX-512 VBMI can time, and calibrate, what a CPU without it runs.

use std::sync::OnceLock;

/// A set of vector instructions the kernel may use, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Simd {
    /// The build's own target (x86-64's SSE2; any other architecture's baseline).
    Portable,
    /// AVX2: the row loops on 32 byte lanes.
    Avx2,
    /// AVX-512 F, BW and VBMI as well: byte gathers (`vpermi2b`) over successor rows.
    Vbmi,
}

/// The name of the variable that chooses the set for a process and its children.
pub const SIMD_VAR: &str = "DAB_SIMD";

/// A set this CPU lacks, or a name that is no set.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SimdError {
    /// A name that is no set.
    #[error("'{0}' is not a set of vector instructions (portable, avx2 or vbmi)")]
    Name(String),
    /// A set wider than this CPU's (the one asked, the widest it has).
    #[error("this CPU lacks {0} (it has {1}): choose {1} or a narrower set")]
    Lacking(Simd, Simd),
    /// A set asked after the process had fixed another (the one fixed, the one asked).
    #[error("the vector instructions were already chosen ({0}) when {1} was asked")]
    Late(Simd, Simd),
}

impl Simd {
    /// Every set, narrowest first.
    pub const ALL: [Simd; 3] = [Simd::Portable, Simd::Avx2, Simd::Vbmi];

    /// The set's name, as `--simd` and the model file write it.
    pub const fn name(self) -> &'static str {
        match self {
            Simd::Portable => "portable",
            Simd::Avx2 => "avx2",
            Simd::Vbmi => "vbmi",
        }
    }

    /// The widest set this CPU runs.
    pub fn detected() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("avx512f") && has!("avx512bw") && has!("avx512vbmi") {
                return Simd::Vbmi;
            }
            if has!("avx2") {
                return Simd::Avx2;
            }
        }
        Simd::Portable
    }

    /// The set this process uses: the one chosen by [`Simd::choose`], else by [`SIMD_VAR`]
    /// where it names a set this CPU runs, else [`Simd::detected`]. Fixed at its first use.
    pub fn current() -> Simd {
        *CURRENT.get_or_init(|| Simd::from_env().ok().flatten().unwrap_or_else(Simd::detected))
    }

    /// The set [`SIMD_VAR`] names (None where it is unset or empty), checked against this CPU.
    pub fn from_env() -> Result<Option<Simd>, SimdError> {
        match std::env::var(SIMD_VAR) {
            Ok(text) if !text.trim().is_empty() => text.trim().parse::<Simd>()?.supported().map(Some),
            _ => Ok(None),
        }
    }

    /// This set, where this CPU runs it.
    pub fn supported(self) -> Result<Simd, SimdError> {
        let has = Simd::detected();
        if self <= has { Ok(self) } else { Err(SimdError::Lacking(self, has)) }
    }

    /// Makes `self` the set of this process, before any kernel is built (the binary calls it
    /// once, at start).
    pub fn choose(self) -> Result<(), SimdError> {
        let want = self.supported()?;
        let got = *CURRENT.get_or_init(|| want);
        if got == want { Ok(()) } else { Err(SimdError::Late(got, want)) }
    }

    /// Whether the kernel takes byte gathers: what decides which of a cost model's terms its
    /// inner moves fall in.
    pub fn gathers(self) -> bool {
        self == Simd::Vbmi
    }
}

static CURRENT: OnceLock<Simd> = OnceLock::new();

impl std::fmt::Display for Simd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Simd {
    type Err = SimdError;

    fn from_str(s: &str) -> Result<Simd, SimdError> {
        Simd::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| SimdError::Name(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_reads_back_from_its_name_and_no_other_name_is_a_set() {
        for s in Simd::ALL {
            assert_eq!(s.name().parse::<Simd>(), Ok(s));
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
        }
        assert_eq!("avx512".parse::<Simd>(), Err(SimdError::Name("avx512".into())));
        assert!(Simd::Portable < Simd::Avx2 && Simd::Avx2 < Simd::Vbmi);
    }

    #[test]
    fn this_cpu_runs_the_sets_up_to_the_one_detected_and_no_wider() {
        let has = Simd::detected();
        for s in Simd::ALL {
            assert_eq!(s.supported().is_ok(), s <= has, "{s} on a CPU with {has}");
        }
        assert!(Simd::current() <= has);
        // Choosing the set already in use is no change.
        assert_eq!(Simd::current().choose(), Ok(()));
    }
}
