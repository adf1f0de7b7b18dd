//! A statement's bind parameters, for both drivers.

/// One statement parameter.
#[derive(Debug, Clone, Copy)]
pub enum Param<'a> {
    Int(i64),
    Str(&'a str),
}
