"""``python -m keyroute.conformance``: runs the conformance corpus (see ``keyroute.conformance``)."""

from . import main

raise SystemExit(main())
