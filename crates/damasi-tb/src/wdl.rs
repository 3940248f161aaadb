//! The 2-bit codes table files store for [`Wdl`] values (0 loss, 1 draw, 2 win; 3 is never a
//! value), the file format's own numbering of the rules crate's values.

use damasi::Wdl;

/// The 2-bit code of a value in table files.
#[inline]
pub(crate) const fn code(v: Wdl) -> u8 {
    match v {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

/// The value of a 2-bit code, `None` for 3.
#[inline]
pub(crate) const fn from_code(code: u8) -> Option<Wdl> {
    match code {
        0 => Some(Wdl::Loss),
        1 => Some(Wdl::Draw),
        2 => Some(Wdl::Win),
        _ => None,
    }
}
