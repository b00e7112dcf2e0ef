"""Message properties: typed values and names (``values``), the MQRFH2 header and its folders
(``rfh2``), what an MQGET returns of them (``deliver``) and the message-selector language
(``selector``)."""
