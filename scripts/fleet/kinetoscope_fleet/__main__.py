import sys

from kinetoscope_fleet.cli import main

sys.exit(main())
