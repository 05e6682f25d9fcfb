"""The ground floor: plain helpers any layer may read, importing nothing else of Teorema's."""
