//! Hashes of what is persisted (file names, index keys, saved scanner state): the same on every
//! run, platform and version, unlike the standard library's hashers.

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_of(&[bytes])
}

/// FNV-1a, 64 bits, of `parts` one after the other (as of their concatenation).
pub fn fnv1a_of(parts: &[&[u8]]) -> u64 {
    parts
        .iter()
        .flat_map(|p| p.iter())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv1a_is_the_published_function() {
        // Reference values of FNV-1a 64 (the empty input is the offset basis).
        assert_eq!(super::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(super::fnv1a_of(&[b"foo", b"", b"bar"]), super::fnv1a(b"foobar"));
    }
}
