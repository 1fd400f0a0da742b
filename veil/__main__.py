import sys

from veil.cli import main

sys.exit(main())
