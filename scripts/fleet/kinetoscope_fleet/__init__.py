"""kinetoscope-fleet: the map step of `kinetoscope distributed` on a Dask cluster (see cli.py)."""
