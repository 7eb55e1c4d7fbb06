import sys

from pi_lsp.cli import main

sys.exit(main())
