//! One module per subcommand.

pub mod origin;
