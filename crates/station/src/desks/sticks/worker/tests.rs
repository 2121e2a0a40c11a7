//! The stick desk's own tests, on a stick whose work hangs until let go:
//! stopped work holds the desk until it ends, and an install is never stopped.

use super::*;
use wordjudge_core::usb::sim::HangingSticks;

fn stick() -> Stick {
    HangingSticks::stick()
}

fn wait_for(desk: &mut UsbDesk, mut done: impl FnMut(&mut UsbDesk) -> bool) {
    for _ in 0..500 {
        if done(desk) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the stopped work never ended");
}

#[test]
fn stopped_stick_work_refuses_new_work_until_it_ends_and_its_stick_is_let_go() {
    let dir = tempfile::tempdir().unwrap();
    let (sticks, release) = HangingSticks::new(dir.path().to_path_buf());
    let mut desk = UsbDesk::new(Arc::new(sticks), dir.path().join("lexicons"));
    desk.open_for_import(stick()).unwrap();
    assert!(desk.poll().is_none(), "the mount hangs");
    assert_eq!(desk.abandon(), Some(UsbWork::Reading));
    assert!(desk.poll().is_none(), "nothing is shown of stopped work");
    assert!(desk.busy() && !desk.idle() && !desk.can_export());
    assert!(matches!(desk.open_for_import(stick()), Err(UsbError::Busy)), "no second job on a hanging stick");
    // The stick answers at last: the read ends, the stick it opened is
    // unmounted, and the desk is free again; nothing reached a screen.
    release.send(()).unwrap();
    let mut records = 0;
    wait_for(&mut desk, |desk| {
        records += desk.poll_abandoned().len();
        !desk.busy()
    });
    assert!(desk.poll().is_none());
    assert!(desk.idle());
    assert_eq!(records, 1, "the unmount of the stick the stopped read opened is recorded");
    assert!(desk.open.is_none());
}

#[test]
fn an_install_is_not_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (sticks, _release) = HangingSticks::new(dir.path().to_path_buf());
    let mut desk = UsbDesk::new(Arc::new(sticks), dir.path().join("lexicons"));
    let (_hold, held) = std::sync::mpsc::channel::<()>();
    let (s, work) = (stick(), UsbWork::Installing);
    let ends = move |_: &_| {
        let _ = held.recv();
        Outcome::Failed { stick: s, work, problem: String::new() }
    };
    desk.jobs.start(work, ends, Outcome::Failed { stick: stick(), work, problem: String::new() }).unwrap();
    assert_eq!(desk.abandon(), None);
    assert!(desk.jobs.running().is_some());
}
