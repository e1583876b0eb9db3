import sys

from rolls.engine.conformance import main

sys.exit(main())
