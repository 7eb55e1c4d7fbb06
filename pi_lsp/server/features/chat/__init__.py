"""Chat sessions for the editor: ``pi/chat``, ``pi/session/*``, ``pi/models`` and
``pi/model/select``."""
