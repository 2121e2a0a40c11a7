//! Shared helpers for the lexicon tests: near misses, and forging a word list
//! to a chosen fingerprint by solving over GF(2), as an attacker would.
#![allow(dead_code)]

use std::collections::HashSet;
use wordjudge_core::fingerprint::Fingerprint;

/// A fingerprint as a 128-bit vector over GF(2) (first hex digit most significant).
pub fn bits(fp: Fingerprint) -> u128 {
    u128::from_str_radix(&fp.to_string(), 16).unwrap()
}

/// The fingerprint of `words`.
pub fn fingerprint_of<S: AsRef<str>>(words: &[S]) -> Fingerprint {
    Fingerprint::of_words(words.iter().map(|w| w.as_ref().as_bytes()))
}

/// Junk words to add so that the fingerprint of `words ∪ junk` equals
/// `target` on the bits in `mask` (all 128, or the 32 a published 8-digit
/// value fixes). Gaussian elimination over GF(2) on the MD5 digests of random
/// candidate words that are not in `words`: the fingerprint is linear in the
/// set of words, so any target is reachable once the candidates span the space.
pub fn forge_junk(words: &HashSet<String>, target: u128, mask: u128, seed: u64) -> Vec<String> {
    let current = bits(Fingerprint::of_words(words.iter().map(|w| w.as_bytes())));
    let need = (current ^ target) & mask;
    let mut rng = fastrand::Rng::with_seed(seed);
    // Basis rows: (vector, which candidates XOR to it as a bitset of indexes).
    let mut candidates: Vec<String> = Vec::new();
    let mut basis: Vec<(u128, Vec<usize>)> = Vec::new();
    while basis.len() < mask.count_ones() as usize {
        let len = rng.usize(10..=15);
        let word: String = (0..len).map(|_| rng.alphabetic().to_ascii_uppercase()).collect();
        if words.contains(&word) || candidates.contains(&word) {
            continue;
        }
        let index = candidates.len();
        candidates.push(word.clone());
        let mut v = bits(Fingerprint::of_words([word.as_bytes()])) & mask;
        let mut combo = vec![index];
        for (bv, bc) in &basis {
            let pivot = 1u128 << (127 - bv.leading_zeros());
            if v & pivot != 0 {
                v ^= bv;
                combo = xor_sets(&combo, bc);
            }
        }
        if v != 0 {
            // Keep the basis reduced: each row's pivot appears only in that row.
            let pivot = 1u128 << (127 - v.leading_zeros());
            for (bv, bc) in basis.iter_mut() {
                if *bv & pivot != 0 {
                    *bv ^= v;
                    *bc = xor_sets(bc, &combo);
                }
            }
            basis.push((v, combo));
        }
    }
    let mut rest = need;
    let mut chosen: Vec<usize> = Vec::new();
    for (bv, bc) in &basis {
        let pivot = 1u128 << (127 - bv.leading_zeros());
        if rest & pivot != 0 {
            rest ^= bv;
            chosen = xor_sets(&chosen, bc);
        }
    }
    assert_eq!(rest, 0, "the candidates span every bit of the mask");
    chosen.into_iter().map(|i| candidates[i].clone()).collect()
}

fn xor_sets(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out: Vec<usize> =
        a.iter().filter(|x| !b.contains(x)).chain(b.iter().filter(|x| !a.contains(x))).copied().collect();
    out.sort_unstable();
    out
}

/// A word one letter away from `word` that is not in `list`.
pub fn near_miss(word: &str, list: &HashSet<&str>) -> String {
    let mut bytes = word.as_bytes().to_vec();
    for i in 0..bytes.len() {
        let original = bytes[i];
        for offset in 1..26u8 {
            bytes[i] = b'A' + (original - b'A' + offset) % 26;
            let candidate = std::str::from_utf8(&bytes).unwrap();
            if !list.contains(candidate) {
                return candidate.to_string();
            }
        }
        bytes[i] = original;
    }
    panic!("no one-letter change of {word} is outside the list");
}

/// `count` distinct random words of 2-15 letters, sorted.
pub fn random_words(count: usize, seed: u64) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut set = HashSet::new();
    while set.len() < count {
        let len = rng.usize(2..=15);
        set.insert((0..len).map(|_| rng.alphabetic().to_ascii_uppercase()).collect::<String>());
    }
    let mut words: Vec<String> = set.into_iter().collect();
    words.sort();
    words
}

/// Writes `words` one per line to `path`.
pub fn write_words<S: AsRef<str>>(path: &std::path::Path, words: &[S]) {
    let mut text = String::new();
    for w in words {
        text.push_str(w.as_ref());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}
