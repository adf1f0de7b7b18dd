//! The faces a build can leave out (the cargo features `k6`, `sysbench`
//! and `cluster`; the README's "Building"). Their subcommands stay in every
//! build, so that asking for one gets a one-line answer naming the feature
//! (exit 8), not clap's "unrecognized subcommand".

use crate::exit::{self, CliError};

/// Whatever follows an absent face's name: not parsed.
#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct Absent {
    #[arg(
        num_args = 0..,
        allow_hyphen_values = true,
        trailing_var_arg = true,
        hide = true
    )]
    args: Vec<std::ffi::OsString>,
}

/// `what` (a subcommand, an `s3://` URL) needs the cargo feature `feature`.
pub fn not_built(what: &str, feature: &str) -> CliError {
    CliError::new(
        exit::NOT_BUILT,
        format!(
            "{what}: this loadlab was built without the `{feature}` feature; build it with `--features {feature}` (or `--features full`, every face), as the README's \"Building\" says"
        ),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_feature_and_exits_with_its_own_code() {
        let e = super::not_built("k6", "k6");
        assert_eq!(e.code, 8);
        assert!(
            e.message.starts_with(
                "k6: this loadlab was built without the `k6` feature; build it with `--features k6`"
            ),
            "{}",
            e.message
        );
        assert!(!e.message.contains('\n'));
    }
}
