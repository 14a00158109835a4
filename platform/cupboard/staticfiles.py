"""Static files: which plotly.js the pages load, and how collected files are stored.

Pages never load plotly.js from a CDN. They load a plotly.js of its core and the bar and heatmap
traces, the only ones we draw (1.2 MB against the full bundle's 4.8 MB, whose parsing held the
first charts back by a second), built into static/plotly/ by scripts/vendor-plotly at the
version the plotly package bundles. collectstatic hashes and gzips it with our own files, and
WhiteNoise serves it compressed and cacheable for a year.
"""
from whitenoise.storage import CompressedManifestStaticFilesStorage

PLOTLY = "plotly/plotly-cupboard.min.js"


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Collected (the image runs collectstatic): each name carries a hash of its content, and
    WhiteNoise serves a gzipped copy with a one-year, immutable cache lifetime. Not collected
    (a checkout, debug on or off): plain names, which WhiteNoise serves from the finders."""

    def stored_name(self, name):
        if not self.hashed_files:  # no manifest: collectstatic never ran
            return name
        return super().stored_name(name)
