"""Logging filters: a request refused for the client's own mistake is one line in the log."""

import logging


class ClientErrorInOneLine(logging.Filter):
    """Django logs a refused request (a body too large, a bad Host header, a forbidden page) with
    its traceback, the suspicious ones at ERROR: that traceback is Django's parsing code, never a
    fault to fix, and it buries the real errors. A 4xx becomes one WARNING line; a 5xx is kept whole.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", 500) < 500:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True
