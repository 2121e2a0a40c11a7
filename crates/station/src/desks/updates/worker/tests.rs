use super::*;

#[test]
fn a_check_on_a_hanging_stick_is_stopped_and_its_copy_removed_when_it_ends() {
    use wordjudge_core::usb::sim::HangingSticks;
    let dir = tempfile::tempdir().unwrap();
    let stick_root = dir.path().join("stick");
    std::fs::create_dir_all(&stick_root).unwrap();
    std::fs::write(stick_root.join("wordjudge-0.1.1.raucb"), b"{\"version\":\"0.1.1\"}\n").unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let (sticks, release) = HangingSticks::new(stick_root);
    let updates = wordjudge_core::update::sim::SimUpdates::new("0.1.0", state.clone());
    let mut desk = UpdateDesk::new(Arc::new(updates), Arc::new(sticks));
    desk.check(HangingSticks::stick(), "wordjudge-0.1.1.raucb").unwrap();
    assert!(desk.poll().is_none(), "the mount hangs");
    assert!(desk.abandon_check());
    assert!(desk.busy(), "stopped work that still lives keeps the desk busy");
    assert!(matches!(desk.check(HangingSticks::stick(), "wordjudge-0.1.1.raucb"), Err(UpdateNotStarted::Busy)));
    release.send(()).unwrap();
    for _ in 0..500 {
        if desk.poll().is_some() {
            panic!("an answer of stopped work reached the flow");
        }
        if !desk.busy() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(!desk.busy(), "the stopped check ended");
    let left: Vec<_> = std::fs::read_dir(&state).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().ends_with(".raucb")), "the copy it made is removed: {left:?}");
}
