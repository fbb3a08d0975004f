"""Tables, figures and the report of the mcb suite (DAS-2 study layouts).

Runs under Debian's /usr/bin/python3 with python3-matplotlib and python3-pandas
(see analysis/README.md).
"""
