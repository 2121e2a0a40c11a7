//! `Lexicon::contains`, the judging hot path, allocates nothing: counted by a
//! global allocator around lookups on a layered lexicon with corrections.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn contains_allocates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "CAT\nDOG\nZEBRAS\n").unwrap();
    std::fs::write(d.join("b.txt"), "ABANDONMENT\nCATS\n").unwrap();
    wordjudge_core::lexicon::build::build_lexicon(&d.join("a.txt"), &d.join("A.fst"), false).unwrap();
    wordjudge_core::lexicon::build::build_lexicon(&d.join("b.txt"), &d.join("B.fst"), false).unwrap();
    std::fs::write(
        d.join("L.toml"),
        "id = \"L\"\nname = \"l\"\nedition = \"e\"\nadd = [\"EW\"]\nremove = [\"DOG\"]\n\
         [[layer]]\nfst = \"A.fst\"\n[[layer]]\nfst = \"B.fst\"\nmin_len = 9\n",
    )
    .unwrap();
    let lexicon = wordjudge_core::lexicon::catalog::Catalog::load(d).open("L").unwrap();
    let demo = wordjudge_core::lexicon::catalog::open_demo().unwrap();
    let words = ["CAT", "DOG", "EW", "ABANDONMENT", "CATS", "ZEBRAS", "QQ", "ZZZZZZZZZZZZZZZ"];
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let mut found = 0;
    for _ in 0..1000 {
        for w in words {
            found += usize::from(lexicon.contains(w)) + usize::from(demo.contains(w));
        }
    }
    let allocated = ALLOCATIONS.load(Ordering::SeqCst) - before;
    assert_eq!(allocated, 0, "contains allocated {allocated} times");
    // CAT, EW, ABANDONMENT, ZEBRAS in L; the demo has some of them too.
    assert!(found >= 4000, "{found}");
}
