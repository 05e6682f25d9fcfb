"""``python -m teorema.serve`` with Twisted's own buffered socket writes instead of
``write_at_once``: the other side of its A/B (``bench_scale.py --twisted-writes``)."""

from teorema import serve

if __name__ == "__main__":
    serve.write_at_once = serve._buffered_write  # what main() installs on tcp.Connection
    serve.main()
