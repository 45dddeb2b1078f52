"""The step-through replay viewer (``quinze replay LOG --game N --step``): timeline, screen, key loop."""
