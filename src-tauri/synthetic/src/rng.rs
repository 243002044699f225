//! The generator's PRNG: small, fast and the same on every platform, so a seed gives the same
//! bytes everywhere.

/// splitmix64: tiny, fast and good enough for test data.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n == 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    pub(crate) fn below_usize(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// Uniform in `lo..hi` (`lo` when empty).
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo))
    }

    pub(crate) fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }

    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Log-uniform in `lo..hi`.
    pub(crate) fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let (l, h) = ((lo.max(1) as f64).ln(), (hi.max(lo.max(1) + 1) as f64).ln());
        (l + self.unit() * (h - l)).exp() as u64
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below_usize(items.len()))
    }

    pub(crate) fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        self.pick(items).copied().unwrap_or("")
    }

    pub(crate) fn fork(&mut self) -> Rng {
        Rng(self.next_u64())
    }

    pub(crate) fn uuid(&mut self) -> [u8; 36] {
        let a = self.next_u64();
        let b = self.next_u64();
        let mut out = [b'-'; 36];
        let mut nibbles = (0..32).map(|i| {
            let word = if i < 16 { a } else { b };
            ((word >> ((i % 16) * 4)) & 0xF) as u8
        });
        for (pos, slot) in out.iter_mut().enumerate() {
            if matches!(pos, 8 | 13 | 18 | 23) {
                continue;
            }
            let mut n = nibbles.next().unwrap_or(0);
            if pos == 14 {
                n = 4;
            } else if pos == 19 {
                n = 8 | (n & 3);
            }
            *slot = hex_digit(n);
        }
        out
    }

    pub(crate) fn uuid_string(&mut self) -> String {
        String::from_utf8_lossy(&self.uuid()).into_owned()
    }

    pub(crate) fn hex(&mut self, len: usize) -> String {
        (0..len).map(|_| char::from(hex_digit(self.below(16) as u8))).collect()
    }

    pub(crate) fn base62(&mut self, len: usize) -> String {
        const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..len)
            .map(|_| char::from(A.get(self.below_usize(A.len())).copied().unwrap_or(b'x')))
            .collect()
    }

    pub(crate) fn base36(&mut self, len: usize) -> String {
        const A: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
        (0..len)
            .map(|_| char::from(A.get(self.below_usize(A.len())).copied().unwrap_or(b'x')))
            .collect()
    }
}

pub(crate) fn hex_digit(n: u8) -> u8 {
    match n {
        0..=9 => b'0' + n,
        _ => b'a' + (n.min(15) - 10),
    }
}
