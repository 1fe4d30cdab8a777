//! Named choices: the plain enums a user picks by name (policy, engine, scheme, symmetry,
//! piece dependencies, graph format, player). One macro gives each its list, its names, what
//! each means (the variant's doc comment), `Display` and `FromStr`, so that the library needs
//! no argument parser and the command line builds its help from the same text.

/// A plain enum whose values are chosen by name.
pub trait Choice: Copy + Send + Sync + 'static {
    /// Every value, in the order of declaration.
    const ALL: &'static [Self];
    /// The value's name, as typed and printed.
    fn name(self) -> &'static str;
    /// What the value means: its doc comment on one line, without the final full stop; empty
    /// where there is none.
    fn about(self) -> &'static str;
}

/// The error of a name that is none of the choices.
pub(crate) fn unknown<T: Choice>(what: &str, text: &str) -> String {
    let names: Vec<&str> = T::ALL.iter().map(|c| c.name()).collect();
    format!("'{text}' is not a {what} (possible values: {})", names.join(", "))
}

/// Declares a [`Choice`] enum: `choice! { "policy", #[attrs] pub enum Policy { /// doc
/// Fifo = "fifo", ... } }`. The string is what the error of an unknown name calls it.
macro_rules! choice {
    (
        $what:literal,
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $text:literal,
            )+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!("Chosen by the name `", $text, "`.")]
                $variant,
            )+
        }

        impl $crate::support::Choice for $name {
            const ALL: &'static [$name] = &[$($name::$variant),+];

            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            fn about(self) -> &'static str {
                // As clap shows a doc comment: on one line, without the final full stop.
                let text = match self {
                    $($name::$variant => concat!($($doc),*).trim()),+
                };
                text.strip_suffix('.').unwrap_or(text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::support::Choice::name(*self))
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<$name, String> {
                <$name as $crate::support::Choice>::ALL
                    .iter()
                    .copied()
                    .find(|c| $crate::support::Choice::name(*c) == text)
                    .ok_or_else(|| $crate::support::choice::unknown::<$name>($what, text))
            }
        }
    };
}
pub(crate) use choice;

#[cfg(test)]
mod tests {
    use super::Choice;

    choice! {
        "colour",
        /// A test enum.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Colour {
            /// Like the sky,
            /// on two lines.
            Blue = "blue",
            Red = "red",
        }
    }

    #[test]
    fn every_name_parses_back_to_its_value_and_help_joins_the_doc_lines() {
        for &c in Colour::ALL {
            assert_eq!(c.to_string().parse::<Colour>(), Ok(c));
        }
        assert_eq!(Colour::Blue.about(), "Like the sky, on two lines");
        assert_eq!(Colour::Red.about(), "");
        assert_eq!("green".parse::<Colour>(), Err("'green' is not a colour (possible values: blue, red)".into()));
    }
}
