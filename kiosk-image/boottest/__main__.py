"""python3 -m boottest IMAGE [WORK] (as test-boot.sh runs it)."""
from .main import run

if __name__ == "__main__":
    run()
