"""The Trio server: TCP serving, lobby, tables, seats, clocks and logs. Imports ``protocol`` only."""
