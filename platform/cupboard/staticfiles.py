"""Static files: plotly.js taken from the plotly package, and how collected files are stored.

Pages never load plotly.js from a CDN. It ships inside the plotly package (4.8 MB), so a
finder offers it as the static file `plotly/plotly.min.js`: collectstatic hashes and gzips
it with our own files, and WhiteNoise serves it compressed and cacheable for a year.
"""
from importlib.resources import files

from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage

PLOTLY = "plotly/plotly.min.js"


class PlotlyFinder(BaseFinder):
    """Finds `plotly/plotly.min.js` in the installed plotly package, and nothing else there."""

    def _storage(self) -> FileSystemStorage:
        storage = FileSystemStorage(location=str(files("plotly") / "package_data"))
        storage.prefix = PLOTLY.split("/")[0]
        return storage

    def find(self, path, find_all=False, **kwargs):
        found = self._storage().path(PLOTLY.split("/")[1]) if path == PLOTLY else None
        if find_all:
            return [found] if found else []
        return found

    def list(self, ignore_patterns):
        yield PLOTLY.split("/")[1], self._storage()


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Collected (the image runs collectstatic): each name carries a hash of its content, and
    WhiteNoise serves a gzipped copy with a one-year, immutable cache lifetime. Not collected
    (a checkout, debug on or off): plain names, which WhiteNoise serves from the finders."""

    def stored_name(self, name):
        if not self.hashed_files:  # no manifest: collectstatic never ran
            return name
        return super().stored_name(name)
