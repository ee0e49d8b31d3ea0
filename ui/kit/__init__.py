"""What every page shares and that knows no page."""
