"""The page generators and checks of scripts/docs.py, one module per page."""
