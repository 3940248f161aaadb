//! A fixed-width two's complement integer wide enough for the pairing edge weights.
//!
//! The Dutch criteria are packed into one number per edge, most important criterion in the
//! most significant bits; with 80 players and many score groups that takes several hundred
//! bits. [`Wide`] is a plain array of 64-bit limbs with wrapping arithmetic and signed
//! comparison: all the matching algorithm needs.

use std::cmp::Ordering;

/// A signed integer of `N * 64` bits, little-endian limbs, wrapping arithmetic.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Wide<const N: usize>([u64; N]);

impl<const N: usize> std::fmt::Debug for Wide<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "0x")?;
        let mut started = false;
        for limb in self.0.iter().rev() {
            if started {
                write!(f, "{limb:016x}")?;
            } else if *limb != 0 {
                write!(f, "{limb:x}")?;
                started = true;
            }
        }
        if !started {
            write!(f, "0")?;
        }
        Ok(())
    }
}

impl<const N: usize> Wide<N> {
    /// Zero.
    pub(crate) const ZERO: Self = Wide([0; N]);

    /// A small non-negative value.
    pub(crate) fn from_u64(v: u64) -> Wide<N> {
        let mut w = Self::ZERO;
        w.0[0] = v;
        w
    }

    /// Whether the value is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    /// Whether the value is negative.
    pub(crate) fn is_negative(&self) -> bool {
        self.0[N - 1] >> 63 == 1
    }

    /// `self + other`, wrapping.
    pub(crate) fn add(&self, other: &Wide<N>) -> Wide<N> {
        let mut out = Self::ZERO;
        let mut carry = false;
        for i in 0..N {
            let (s1, c1) = self.0[i].overflowing_add(other.0[i]);
            let (s2, c2) = s1.overflowing_add(carry as u64);
            out.0[i] = s2;
            carry = c1 || c2;
        }
        out
    }

    /// `self - other`, wrapping.
    pub(crate) fn sub(&self, other: &Wide<N>) -> Wide<N> {
        let mut out = Self::ZERO;
        let mut borrow = false;
        for i in 0..N {
            let (s1, b1) = self.0[i].overflowing_sub(other.0[i]);
            let (s2, b2) = s1.overflowing_sub(borrow as u64);
            out.0[i] = s2;
            borrow = b1 || b2;
        }
        out
    }

    /// `self + v`.
    pub(crate) fn add_u64(&self, v: u64) -> Wide<N> {
        self.add(&Self::from_u64(v))
    }

    /// `self - v`.
    pub(crate) fn sub_u64(&self, v: u64) -> Wide<N> {
        self.sub(&Self::from_u64(v))
    }

    /// `self | v` on the lowest limb.
    pub(crate) fn or_u64(&self, v: u64) -> Wide<N> {
        let mut out = *self;
        out.0[0] |= v;
        out
    }

    /// `self << bits` (bits shifted out at the top are lost).
    pub(crate) fn shl(&self, bits: u32) -> Wide<N> {
        let limb_shift = (bits / 64) as usize;
        let bit_shift = bits % 64;
        let mut out = Self::ZERO;
        if limb_shift >= N {
            return out;
        }
        for i in (limb_shift..N).rev() {
            let src = i - limb_shift;
            let mut v = self.0[src] << bit_shift;
            if bit_shift != 0 && src > 0 {
                v |= self.0[src - 1] >> (64 - bit_shift);
            }
            out.0[i] = v;
        }
        out
    }

    /// Arithmetic shift right by one bit.
    pub(crate) fn shr1(&self) -> Wide<N> {
        let mut out = Self::ZERO;
        for i in 0..N {
            let mut v = self.0[i] >> 1;
            if i + 1 < N {
                v |= self.0[i + 1] << 63;
            } else {
                v |= self.0[i] & (1 << 63);
            }
            out.0[i] = v;
        }
        out
    }

    /// `1 << bit`.
    pub(crate) fn bit(bit: u32) -> Wide<N> {
        Self::from_u64(1).shl(bit)
    }
}

impl<const N: usize> Ord for Wide<N> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        for i in (0..N).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        Ordering::Equal
    }
}

impl<const N: usize> PartialOrd for Wide<N> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {

    type Wide = super::Wide<4>;

    #[test]
    fn arithmetic() {
        let a = Wide::bit(200).add_u64(5);
        let b = a.sub_u64(7);
        assert!(b < a);
        assert_eq!(b.add_u64(7), a);
        assert_eq!(Wide::bit(70).shr1(), Wide::bit(69));
        let neg = Wide::ZERO.sub_u64(4);
        assert!(neg.is_negative());
        assert_eq!(neg.shr1(), Wide::ZERO.sub_u64(2));
        assert!(neg < Wide::ZERO);
        assert_eq!(
            Wide::from_u64(3).shl(64 * 3 + 5),
            Wide::bit(197).add(&Wide::bit(198))
        );
    }
}
