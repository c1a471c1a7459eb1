"""Every operation of the service, declared once (`registry`), and how each is declared."""
