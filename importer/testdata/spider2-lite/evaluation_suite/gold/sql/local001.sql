SELECT bowler, economy
FROM bowlers
ORDER BY economy
LIMIT 1;
