// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Owned} from "../Owned.sol";

/// @title Dev-only Chainlink-style price feed (AggregatorV3Interface shape)
/// @notice The owner sets the answer. `setRoundData` also sets `updatedAt`, so tests can make
/// a feed look stale.
contract PriceFeed is Owned {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint8 public immutable decimals;
    uint256 public constant version = 4;
    string public description;
    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    /// @dev Same signature as Chainlink's aggregators.
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error NoDataPresent(uint80 roundId);

    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) {
        decimals = decimals_;
        description = description_;
        _record(initialAnswer, block.timestamp);
    }

    function setAnswer(int256 answer) external onlyOwner {
        _record(answer, block.timestamp);
    }

    function setRoundData(int256 answer, uint256 updatedAt) external onlyOwner {
        _record(answer, updatedAt);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round storage round = rounds[roundId];
        if (round.updatedAt == 0) revert NoDataPresent(roundId);
        return (roundId, round.answer, round.startedAt, round.updatedAt, roundId);
    }

    function latestAnswer() external view returns (int256) {
        return rounds[latestRound].answer;
    }

    function _record(int256 answer, uint256 updatedAt) private {
        uint80 roundId = latestRound + 1;
        rounds[roundId] = Round(answer, updatedAt, updatedAt);
        latestRound = roundId;
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
